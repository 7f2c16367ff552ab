"""Apply privacy-breaking mutants (catalog.py) to scratch copies of the workflow and run their paper's black-box
privacy audit on the quick configuration; report caught / missed.

    python tests/mutants/run_mutant.py [NAME ...] [--base DIR] [--kind KIND] [--paper PAPER] [--json FILE]
    python tests/mutants/run_mutant.py [NAME ...] --base DIR --violations-only

No NAME: every mutant of the catalog (filtered by --kind / --paper). A mutant is *caught* when its paper's
results/quick/<paper>/privacy_audit.csv has a ``violated`` row (not ``violated (paper)``) whose (mechanism, setting,
epsilon) row of the unmutated run says ``holds``. The unmutated run is --base (a checkout or copy where the quick
configuration ran, e.g. the repository after .ci/step_quick): its results/, resources/ and .snakemake/ are copied
into each scratch copy, and the jobs that can run the mutated code (the paper's audit rule and the mutant's
``rerun`` rules) are forced to rerun. Without --base the unmutated audit is run first in its own scratch copy.

Scoring follows the detection requirement (violation.py): each mutant's violation ratio (true / claimed delta at
the claimed eps; true / claimed eps for pure eps-DP) is computed from the unmutated run, independently of the
mutated accounting. A missed mutant is excused only when that ratio is below the requirement (delta: 2x, eps:
1.25x). Exit status 1 if a mutant is missed whose ratio is at or above the requirement or not computed (spdp,
dpkmeans), or if a mutant catalog.py documents as ``sub_threshold`` has a computed ratio at or above it.
``--violations-only``: the ratios alone, from --base, without running any mutant (exit status 1 on the last
condition).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "src"))  # the violation ratios from this tree's (unmutated) code

from catalog import KINDS, MUTANTS  # noqa: E402
from violation import measure  # noqa: E402

COPY = ["Snakefile", "workflow", "config", "src", "environment.yml", "profiles", "tests/mutants"]
KEY = ["mechanism", "setting", "epsilon"]
#: the quick run's results folder (config/quick.yaml names the run quick: results/quick/)
QUICK_RESULTS = "results/quick/"


def _skip_locks(t):
    """Leave out Snakemake's locks and incomplete markers of a run that may still be going on in the base."""
    return None if t.name.startswith((".snakemake/locks", ".snakemake/incomplete")) else t


def scratch_copy(dest: Path, base: Path | None) -> None:
    """The workflow (tracked layout of check_resume) and, from ``base``, its finished run."""
    buf = dest / "copy.tar"
    with tarfile.open(buf, "w") as tar:
        for name in COPY:
            p = REPO / name
            if p.exists():
                tar.add(
                    p, arcname=name, filter=lambda t: None if "__pycache__" in t.name or ".egg-info" in t.name else t
                )
        if base is not None:
            for name in ("results", "resources", ".snakemake", "logs", "benchmarks"):
                if (base / name).exists():
                    tar.add(base / name, arcname=name, filter=_skip_locks)
    with tarfile.open(buf) as tar:
        tar.extractall(dest, filter="fully_trusted")
    buf.unlink()


def run_audit(work: Path, paper: str, mutant: str | None, force: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (the Snakemake process and its jobs) of the paper's audit in ``work``."""
    env = {**os.environ, "PYTHONPATH": f"{work / 'src'}:{work / 'tests' / 'mutants'}", "MPLBACKEND": "Agg"}
    env.pop("DPGRID_MUTANT", None)
    if mutant:
        env["DPGRID_MUTANT"] = mutant
    cmd = [sys.executable, "-m", "snakemake", "--cores", "2", f"{QUICK_RESULTS}{paper}/privacy_audit.csv"]
    cmd += ["--configfile", "config/quick.yaml", "--quiet", "progress"]
    if force:
        cmd += ["--forcerun", *force]
    t, c = time.time(), _children_cpu()
    out = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{mutant or 'unmutated'}: snakemake failed ({out.returncode}):\n{out.stderr[-3000:]}")
    return time.time() - t, _children_cpu() - c


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def sub_threshold_problem(m, v) -> str:
    """Why a documented sub-threshold mutant is not (computed ratio at or above the requirement); "" if it is."""
    if not m.sub_threshold:
        return ""
    if v is None:
        return f"{m.name} is documented sub_threshold but its violation is not computed for {m.paper}"
    if v.required:
        return f"{m.name} is documented sub_threshold but its computed violation is not below the requirement: {v}"
    return ""


def violations_only(names: list[str], base: Path) -> int:
    bad = 0
    for name in names:
        m = MUTANTS[name]
        v = measure(m, base)
        problem = sub_threshold_problem(m, v)
        bad += bool(problem)
        print(f"{name} ({m.paper}, {m.kind}): {v if v is not None else 'not computed'}", flush=True)
        if problem:
            print(f"ERROR {problem}", flush=True)
    return 1 if bad else 0


def judge(mutated: pd.DataFrame, base: pd.DataFrame) -> tuple[bool, str]:
    m = mutated.merge(base[[*KEY, "verdict"]], on=KEY, how="left", suffixes=("", "_base"))
    # a violated row the unmutated run has no row for counts too (a key the mutated code wrote differently)
    hit = m[(m["verdict"] == "violated") & (m["verdict_base"].isna() | (m["verdict_base"] == "holds"))]
    if hit.empty:
        return False, "no violated row where the unmutated code holds"
    r = hit.iloc[0]
    return (
        True,
        f"{len(hit)} row(s), e.g. {r['mechanism']} ({r['setting']}) eps {r['epsilon']:g}: lower bound {r['delta_lower_bound']:.4g} > {r['claimed_delta']:.4g}",
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--base", type=Path)
    ap.add_argument("--kind", choices=KINDS)
    ap.add_argument("--paper")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--keep", action="store_true", help="keep the scratch copies")
    ap.add_argument(
        "--violations-only", action="store_true", help="print the violation ratios from --base; run no mutant"
    )
    a = ap.parse_args(argv)
    names = a.names or [n for n, m in MUTANTS.items() if (a.kind in (None, m.kind)) and (a.paper in (None, m.paper))]
    unknown = [n for n in names if n not in MUTANTS]
    if unknown:
        ap.error(f"unknown mutant(s) {unknown}; known: {sorted(MUTANTS)}")
    if a.violations_only:
        if a.base is None:
            ap.error("--violations-only needs --base (a finished quick run)")
        return violations_only(names, a.base.resolve())
    t0, c0 = time.time(), _children_cpu()
    root = Path(tempfile.mkdtemp(prefix="dpgrid-mutants."))
    base_dir = a.base.resolve() if a.base else None
    bases: dict[str, pd.DataFrame] = {}
    report, missed = [], 0
    try:
        for name in names:
            m = MUTANTS[name]
            if m.paper not in bases:
                if base_dir is not None and (base_dir / f"{QUICK_RESULTS}{m.paper}/privacy_audit.csv").is_file():
                    bases[m.paper] = pd.read_csv(base_dir / f"{QUICK_RESULTS}{m.paper}/privacy_audit.csv")
                else:
                    w = root / f"unmutated-{m.paper}"
                    w.mkdir()
                    scratch_copy(w, base_dir)
                    run_audit(w, m.paper, None, [])
                    bases[m.paper] = pd.read_csv(w / f"{QUICK_RESULTS}{m.paper}/privacy_audit.csv")
                    base_dir = base_dir or w
            w = root / name
            w.mkdir()
            scratch_copy(w, base_dir)
            force = [f"{m.paper}_privacy_audit", *m.rerun] if base_dir is not None else []
            secs, cpu = run_audit(w, m.paper, name, force)
            caught, why = judge(pd.read_csv(w / f"{QUICK_RESULTS}{m.paper}/privacy_audit.csv"), bases[m.paper])
            try:
                v = measure(m, base_dir)
            except Exception as exc:  # a mutant violation.py cannot evaluate: not computed, so a miss fails
                print(f"{name}: violation not computed ({type(exc).__name__}: {exc})", file=sys.stderr)
                v = None
            problem = sub_threshold_problem(m, v)
            excused = not caught and v is not None and not v.required
            failed = (not caught and not excused) or bool(problem)
            missed += failed
            ratio = f"; {v}" if v is not None else "; violation not computed"
            if excused:
                ratio += ": below the detection requirement"
            if problem:
                ratio += f"; ERROR {problem}"
            report.append(
                {
                    "mutant": name,
                    "paper": m.paper,
                    "kind": m.kind,
                    "caught": caught,
                    "violation_ratio": None if v is None else round(v.ratio, 4),
                    "measure": None if v is None else v.measure,
                    "requirement": None if v is None else v.requirement,
                    "below_requirement": None if v is None else not v.required,
                    "sub_threshold": bool(m.sub_threshold),
                    "detail": why + ratio,
                    "seconds": round(secs, 1),
                    "cpu_seconds": round(cpu, 1),
                }
            )
            verdict = "caught" if caught else ("missed (below the requirement)" if excused else "MISSED")
            if problem:
                verdict = f"{verdict} ERROR"
            print(f"{verdict}  {name} ({m.paper}, {m.kind}, {secs:.0f} s, {cpu:.0f} s CPU): {why}{ratio}", flush=True)
            if not a.keep:
                shutil.rmtree(w, ignore_errors=True)
    finally:
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)
    n_caught = sum(r["caught"] for r in report)
    below = sum(not r["caught"] and r["below_requirement"] is True for r in report)
    wall, cpu = time.time() - t0, _children_cpu() - c0
    print(
        f"{n_caught} of {len(report)} mutants caught; {below} missed below the detection requirement "
        f"(violation.py); {wall:.0f} s wall, {cpu:.0f} s CPU of the audit runs"
    )
    if a.json:
        a.json.write_text(json.dumps(report, indent=1) + "\n")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
