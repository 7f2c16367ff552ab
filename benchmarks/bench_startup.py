"""Job start-up overhead: the time a job spends before its work, i.e. importing what its script needs.

For every script of the workflow (workflow/scripts and the papers' workflow/papers/<paper>/scripts), a fresh Python process imports the module the script runs
(``from dpgrid.papers.<x> import <module>``: what ``run_script`` needs before the job body starts) and
reports the wall time (median of ``--repeat`` processes), compared with a bare interpreter. Snakemake's
own per-job preamble (unpickling the job object) is measured separately with a trivial script rule.

    PYTHONPATH=src python benchmarks/bench_startup.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import ast
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _is_module(name: str) -> bool:
    base = REPO / "src" / Path(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def job_modules() -> dict[str, str]:
    """script (relative path) -> the dpgrid module whose function it runs."""
    out = {}
    scripts = [
        *(REPO / "workflow" / "scripts").rglob("*.py"),
        *(REPO / "workflow" / "papers").glob("*/scripts/**/*.py"),
    ]
    for script in sorted(scripts):
        tree = ast.parse(script.read_text())
        mods = [
            f"{n.module}.{a.name}" if _is_module(f"{n.module}.{a.name}") else n.module
            for n in tree.body
            if isinstance(n, ast.ImportFrom) and n.module.startswith("dpgrid") and n.module != "dpgrid.core.pipeline"
            for a in n.names
        ]
        if mods:
            out[str(script.relative_to(REPO))] = mods[0]
    return out


def wall(code: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", code], check=True, env={"PYTHONPATH": str(REPO / "src"), "MPLBACKEND": "Agg"}
        )
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def snakemake_preamble(n_jobs: int = 6) -> float:
    """Seconds per trivial script job run by Snakemake (preamble + interpreter), beyond Snakemake's own start."""
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "s.py").write_text("open(snakemake.output[0], 'w').write('x')\n")
        rules = textwrap.dedent(f"""
            rule all:
                input: expand("o{{i}}.txt", i=range({n_jobs}))
            rule one:
                output: "o{{i}}.txt"
                script: "s.py"
        """)
        (d / "Snakefile").write_text(rules)
        base = d / "Empty"
        base.write_text("rule all:\n    input: []\n")
        t_empty = _time([sys.executable, "-m", "snakemake", "-s", str(base), "--cores", "1", "-q", "all"], d)
        t_jobs = _time([sys.executable, "-m", "snakemake", "--cores", "1", "-q", "all"], d)
    return (t_jobs - t_empty) / n_jobs


def _time(cmd, cwd) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    bare = wall("pass", args.repeat)
    rows = []
    for script, module in job_modules().items():
        rows.append((script, module, wall(f"import {module}", args.repeat) - bare))
    rows.sort(key=lambda r: -r[2])
    print(f"bare interpreter: {bare:.3f} s; Snakemake per-job preamble: {snakemake_preamble():.3f} s")
    print(f"{'script':45s} {'module':40s} import (s)")
    for script, module, t in rows:
        print(f"{script:45s} {module:40s} {t:8.3f}")
    print(f"median import over {len(rows)} scripts: {statistics.median(r[2] for r in rows):.3f} s")


if __name__ == "__main__":
    main()
