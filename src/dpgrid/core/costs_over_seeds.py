"""What a run over the replicates costs (target ``over_seeds``, docs/seeds.md): job CPU per replicate.

Every job writes a benchmark file under ``benchmarks/`` in its replicate's folders (:mod:`dpgrid.core.replicates`):
``benchmarks/<rule>/...`` for replicate (0, 0) and the jobs that run once, ``benchmarks/replicates/d<d>/<rule>/...``
for the data-level jobs of data replicate d, ``benchmarks/[replicates/d<d>/]n<n>/<rule>/...`` for the noise-level
jobs of replicate (d, n). :func:`replicate_costs` sums each replicate's jobs from the folders alone, so it needs a
benchmarks folder of one clean run of ``over_seeds`` (a folder that also holds files of earlier runs counts them
too). The jobs of the rules named ``*over_seeds`` (the claims, tables and figures over the replicates) are counted
apart.

CPU time is Snakemake's benchmark ``cpu_time`` (job time ``s``): the same measure on every side of the ratio
"a noise replicate's CPU against replicate (0, 0)'s", which :mod:`dpgrid.core.costs` tables can exceed for jobs
longer than about 15 s (the benchmark samples such a job sparsely; those tables add the job's own record).

    python -m dpgrid.core.costs_over_seeds benchmarks benchmarks/costs_over_seeds.md
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from dpgrid.core.costs import read_benchmark
from dpgrid.core.io import write_text
from dpgrid.core.replicates import data_index, noise_index

#: the kinds of replicate, in the order of the table
KINDS = {
    "run": "replicate (0, 0): every target of `all` and the jobs that run once (privacy audits, report, feeders)",
    "data": "a data replicate (d, 0), d > 0: its data-level jobs (data, fits, models) and its noise-level jobs",
    "noise": "a noise replicate (d, n), n > 0: its noise-level jobs only",
    "over_seeds": "the claims, tables and figures over the replicates",
}


class CostsOverSeedsError(ValueError):
    """A benchmarks folder without benchmark files, or with a replicate folder of an unknown shape."""


def replicate_of(relative: Path) -> tuple[int, int, str]:
    """(d, n, rule folder) of a benchmark file from its path below the benchmarks folder."""
    parts = list(relative.parts)
    d = n = 0
    if len(parts) > 2 and parts[0] == "replicates":
        try:
            d = data_index(f"replicates/{parts[1]}/")
        except ValueError as exc:
            raise CostsOverSeedsError(f"{relative}: {exc}") from exc
        parts = parts[2:]
    if len(parts) > 1 and re.fullmatch(r"n[0-9]+", parts[0]):
        try:
            n = noise_index(f"{parts[0]}/")
        except ValueError as exc:
            raise CostsOverSeedsError(f"{relative}: {exc}") from exc
        parts = parts[1:]
    if len(parts) < 2:
        raise CostsOverSeedsError(f"{relative}: no rule folder")
    return d, n, parts[0]


def replicate_costs(benchmarks: str | Path) -> pd.DataFrame:
    """One row per job: its replicate (d, n), rule folder, kind (:data:`KINDS`), job time and CPU time (s)."""
    root = Path(benchmarks)
    rows = []
    for path in sorted(root.rglob("*.tsv")):
        d, n, rule = replicate_of(path.relative_to(root))
        if rule.endswith("over_seeds"):
            kind = "over_seeds"
        elif n > 0:
            kind = "noise"
        elif d > 0:
            kind = "data"
        else:
            kind = "run"
        bench = read_benchmark(path)
        rows.append({"d": d, "n": n, "rule": rule, "kind": kind, "s": bench["s"], "cpu_time": bench["cpu_time"]})
    if not rows:
        raise CostsOverSeedsError(f"{root}: no benchmark file (*.tsv)")
    return pd.DataFrame(rows)


def summary(jobs: pd.DataFrame) -> pd.DataFrame:
    """Per kind of replicate: how many replicates, jobs per replicate, and each replicate's CPU (mean, lowest,
    highest), and the mean against replicate (0, 0)'s CPU."""
    per = jobs.groupby(["kind", "d", "n"]).agg(jobs=("rule", "size"), s=("s", "sum"), cpu=("cpu_time", "sum"))
    per = per.reset_index()
    run_cpu = float(per.loc[per["kind"] == "run", "cpu"].sum())
    out = []
    for kind in KINDS:
        g = per[per["kind"] == kind]
        if g.empty:
            continue
        replicates = len(g) if kind in ("data", "noise") else 1
        cpu = g["cpu"] if kind in ("data", "noise") else pd.Series([g["cpu"].sum()])
        out.append(
            {
                "kind": kind,
                "replicates": replicates,
                "jobs": int(g["jobs"].sum()) // replicates,
                "cpu_mean": float(cpu.mean()),
                "cpu_low": float(cpu.min()),
                "cpu_high": float(cpu.max()),
                "share_of_run": float(cpu.mean()) / run_cpu if run_cpu else float("nan"),
            }
        )
    return pd.DataFrame(out)


def markdown(jobs: pd.DataFrame) -> str:
    table = summary(jobs)
    lines = [
        "Over the replicates (target `over_seeds`; CPU time from the jobs' benchmark files, dpgrid.core.costs_over_seeds):",
        "",
        "| replicate | replicates | jobs each | CPU time each (s): mean [lowest, highest] | mean CPU / replicate (0, 0)'s |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in table.itertuples():
        spread = (
            f"{r.cpu_mean:,.0f} [{r.cpu_low:,.0f}, {r.cpu_high:,.0f}]" if r.replicates > 1 else f"{r.cpu_mean:,.0f}"
        )
        lines.append(f"| {KINDS[r.kind]} | {r.replicates} | {r.jobs} | {spread} | {r.share_of_run:.0%} |")
    lines += [
        "",
        f"All jobs: {len(jobs)}, {jobs['s'].sum():,.0f} s of job time, {jobs['cpu_time'].sum():,.0f} s CPU.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dpgrid.core.costs_over_seeds", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("benchmarks", help="the benchmarks folder of one clean run of over_seeds")
    parser.add_argument("out", help="Markdown file to write")
    args = parser.parse_args(argv)
    try:
        jobs = replicate_costs(args.benchmarks)
    except (CostsOverSeedsError, OSError, ValueError) as exc:
        print(f"costs_over_seeds: error: {exc}", file=sys.stderr)
        return 1
    write_text(markdown(jobs), args.out)
    print(f"costs_over_seeds: {len(jobs)} jobs -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
