"""Issue 27's speed targets as ratios of two revisions measured back to back on this machine.

For each revision (default: the 82ebeed baseline, then the checkout's HEAD) the script exports a clean copy
(``git archive``), then in that copy, one revision after the other:

1. the quick configuration, ``snakemake --cores N --configfile config/quick.yaml`` (wall seconds);
2. ``snakemake -n`` and the no-op rerun of the same (``--repeat`` times each: wall and CPU seconds of the
   snakemake process; the first dry run after a code change also fills the import cache of the code hashes);
3. with ``--full``: the full configuration (wall), its summed job CPU and its critical path (from the jobs'
   own records, :mod:`benchmarks.critical_path`, CPU-weighted and wall-weighted).

It prints a Markdown table with the two revisions and their ratio, the targets of issue 27 beside them, and the
machine's load average at each step (wall times mean little on a loaded machine; the CPU figures carry over).
Every copy runs with the interpreter running this script, with ``PYTHONPATH`` set to the copy's ``src``, and with
``DPGRID_MIRROR`` as in the environment (the IEEE 123 feeder comes from the mirror offline).

    python benchmarks/speed_ratios.py [--old 82ebeed] [--new HEAD] [--cores 2] [--repeat 3] [--full]
        [--workdir DIR] [--md OUT.md]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"


def _timed(cmd: list[str], cwd: Path, log: Path) -> tuple[float, float, int]:
    """(wall s, CPU s of the process and its children, exit code) of ``cmd`` run in ``cwd``."""
    env = dict(os.environ, PYTHONPATH=str(cwd / "src"), MPLBACKEND="Agg")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with open(log, "w") as fh:
        rc = subprocess.run(cmd, cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT, check=False).returncode
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, rc


def export(rev: str, dest: Path) -> Path:
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", rev], cwd=REPO, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def measure(rev: str, work: Path, cores: int, repeat: int, full: bool) -> dict:
    smk = [sys.executable, "-m", "snakemake", "all", "--cores", str(cores)]
    quick = ["--configfile", "config/quick.yaml"]
    out: dict = {"rev": rev}
    copy = export(rev, work / f"{rev}-quick")
    wall, cpu, rc = _timed(smk + quick, copy, copy / "run.log")
    if rc:
        raise SystemExit(f"{rev}: the quick run failed (log: {copy / 'run.log'})")
    out["quick wall s"] = (wall, _load())
    for label, extra in (("snakemake -n", ["-n"]), ("no-op rerun", [])):
        runs = [_timed(smk + quick + extra, copy, copy / "again.log") for _ in range(repeat)]
        out[f"{label} wall s"] = (min(r[0] for r in runs), _load())
        out[f"{label} CPU s"] = (min(r[1] for r in runs), _load())
    if full:
        from critical_path import chain_numbers, job_times, plan_jobs

        copy = export(rev, work / f"{rev}-full")
        wall, _, rc = _timed(smk, copy, copy / "run.log")
        if rc:
            raise SystemExit(f"{rev}: the full run failed (log: {copy / 'run.log'})")
        out["full wall s"] = (wall, _load())
        jobs = plan_jobs(copy, [], [])
        times = job_times(jobs, copy)
        numbers = chain_numbers(jobs, times)
        out["full jobs"] = (len(jobs), "")
        out["full summed job CPU s"] = (numbers["cpu"], "")
        out["critical path, CPU-weighted s"] = (numbers["path_cpu"], "")
        out["critical path, wall-weighted s"] = (numbers["path_wall"], "")
        out["longest job wall s"] = (numbers["longest_wall"], "")
    return out


TARGETS = {
    "quick wall s": "<= 60 %",
    "snakemake -n wall s": "< 3 s",
    "no-op rerun wall s": "< 3 s",
    "full summed job CPU s": "<= 50 %",
    "critical path, wall-weighted s": "<= 60 s",
    "longest job wall s": "<= 45 s",
}


def table(old: dict, new: dict) -> str:
    lines = [
        f"| measure | {old['rev']} | {new['rev']} | ratio | issue 27 target | load (old / new) |",
        "|---|---:|---:|---:|---|---|",
    ]
    for key, measured in new.items():
        if key == "rev":  # the revision's name, not a measurement
            continue
        value, load = measured
        o, o_load = old.get(key, (float("nan"), ""))
        ratio = value / o if o else float("nan")
        lines.append(
            f"| {key} | {o:.1f} | {value:.1f} | {100 * ratio:.0f} % | {TARGETS.get(key, '')} | {o_load} / {load} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", default="82ebeed")
    ap.add_argument("--new", default="HEAD")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--full", action="store_true", help="also the full configuration (about 10 min per revision)")
    ap.add_argument("--workdir", type=Path, help="where the copies go (default: a new temporary folder, kept)")
    ap.add_argument("--md", type=Path, help="write the table (Markdown) to this file")
    args = ap.parse_args(argv)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="dpgrid-speed-"))
    results = [measure(rev, work, args.cores, args.repeat, args.full) for rev in (args.old, args.new)]
    text = f"Back to back on {os.cpu_count()} CPUs, --cores {args.cores}; copies in {work}\n\n" + table(*results)
    print(text)
    if args.md:
        args.md.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
