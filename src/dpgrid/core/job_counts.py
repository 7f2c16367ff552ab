"""The job counts of the full and the quick configuration: the generated block ``jobs`` of README.md and ARTIFACT.md.

A paper added or a sweep point configured changes the counts; they reach the documents only through::

    python -m dpgrid.core.job_counts write benchmarks/job_counts.md   # `snakemake -n --forceall` of both
    python -m dpgrid.core.artifact embed jobs benchmarks/job_counts.md README.md
    python -m dpgrid.core.artifact embed jobs benchmarks/job_counts.md ARTIFACT.md

``tests/workflow/test_costs.py`` plans both configurations and compares the embedded blocks with
:func:`job_counts_md` of its counts.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from dpgrid.core.io import write_text

#: configuration name -> the config overlays of ``snakemake --configfile`` (none: config/config.yaml alone)
CONFIGURATIONS: dict[str, tuple[str, ...]] = {"quick": ("config/quick.yaml",), "full": ()}
_LABELS = {"quick": "quick (`--configfile config/quick.yaml`)", "full": "full (`config/config.yaml`)"}
_HEADER = "| configuration | jobs (`snakemake -n --forceall`, rule `all` included) |"
_ROW = re.compile(r"^\| (?P<label>.+?) \| (?P<jobs>\d+) \|$", re.M)


class JobCountsError(ValueError):
    """A plan whose job count cannot be read, or a block that is not a job-counts table."""


def job_counts_md(counts: Mapping[str, int]) -> str:
    """The Markdown table of ``{configuration: jobs}`` (every name of :data:`CONFIGURATIONS`)."""
    missing = [c for c in CONFIGURATIONS if c not in counts]
    if missing:
        raise JobCountsError(f"no job count for configuration(s) {missing}")
    rows = [f"| {_LABELS[c]} | {int(counts[c])} |" for c in CONFIGURATIONS]
    return "\n".join([_HEADER, "|---|---|", *rows]) + "\n"


def parse_job_counts(block: str) -> dict[str, int]:
    """``{configuration: jobs}`` of a table written by :func:`job_counts_md` (e.g. a document's embedded block)."""
    by_label = {m["label"]: int(m["jobs"]) for m in _ROW.finditer(block)}
    counts = {c: by_label[label] for c, label in _LABELS.items() if label in by_label}
    if _HEADER not in block or set(counts) != set(CONFIGURATIONS):
        raise JobCountsError(f"not a job-counts table (python -m dpgrid.core.job_counts write): {block[:200]!r}")
    return counts


def planned_jobs(workdir: str | os.PathLike, configfiles: Sequence[str]) -> int:
    """The total of ``snakemake -n --forceall`` (all jobs of ``all``, whatever is already built) in ``workdir``."""
    cmd = [sys.executable, "-m", "snakemake", "-n", "--forceall", "--quiet", "rules"]
    if configfiles:
        cmd += ["--configfile", *configfiles]
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True)
    total = re.search(r"^total\s+(\d+)\s*$", proc.stdout + proc.stderr, re.M)
    if proc.returncode != 0 or total is None:
        raise JobCountsError(
            f"{' '.join(cmd[2:])} in {workdir} (exit {proc.returncode}) printed no job total:\n"
            + (proc.stderr or proc.stdout)[-2000:]
        )
    return int(total.group(1))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dpgrid.core.job_counts",
        description="Write the job counts of the full and the quick configuration as a Markdown table.",
    )
    parser.add_argument("command", choices=["write"])
    parser.add_argument("output", help="the Markdown file to write, e.g. benchmarks/job_counts.md")
    parser.add_argument("--workdir", default=".", help="the workflow's folder (default: the current one)")
    args = parser.parse_args(argv)
    counts = {name: planned_jobs(Path(args.workdir), files) for name, files in CONFIGURATIONS.items()}
    write_text(job_counts_md(counts), args.output)
    print(f"{args.output}: " + ", ".join(f"{name} {n} jobs" for name, n in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
