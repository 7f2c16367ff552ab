"""What a finished run prints last (``onsuccess`` / ``onerror`` of workflow/rules/common.smk): the claims counts per
paper and verdict, where the claims table is, and the command that builds the reviewers' report of this run."""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence

from dpgrid.core.claims import VERDICTS, read_claims
from dpgrid.core.rebuild import NO_OPTIONS, RunOptions


def report_command(run: RunOptions = NO_OPTIONS, report: str = "results/report.zip") -> str:
    """``snakemake --report`` with the run's config files and overrides (the report reads the run's config)."""
    words = ["snakemake", "--report", report]
    if run.configfiles:
        words += ["--configfile", *run.configfiles]
    command = shlex.join(words)
    if run.overrides:
        command += " --config " + " ".join(shlex.quote(f"{k}={v}") for k, v in run.overrides.items())
    return command


def success_summary(claims_csv: str | os.PathLike, papers: Sequence[str], run: RunOptions = NO_OPTIONS) -> str:
    """Per paper the number of claims and of each verdict; the claims table's files; the report command.
    Without ``claims_csv`` (a run of some targets only): says so, and how to build it."""
    lines = ["dpgrid: the run finished."]
    if not os.path.isfile(claims_csv):
        lines.append(
            f"No claims table yet ({claims_csv}): `snakemake --cores 2` (with the run's --configfile) builds it."
        )
        return "\n".join(lines) + "\n"
    claims = read_claims(claims_csv)
    order = [p for p in papers if any(c.paper == p for c in claims)]
    order += sorted({c.paper for c in claims} - set(order))
    width = max(len(p) for p in order) if order else 0
    lines.append(f"Claims ({claims_csv}, {len(claims)} rows):")
    for paper in order:
        rows = [c for c in claims if c.paper == paper]
        counts = ", ".join(f"{sum(c.verdict == v for c in rows)} {v}" for v in VERDICTS)
        lines.append(f"  {paper:<{width}}  {len(rows):>3} claims: {counts}")
    results = os.path.dirname(os.fspath(claims_csv))  # the run's results folder
    md = os.path.join(results, "claims.md")
    lines.append(f"Each row with the paper's value, ours, the tolerance and the reason: {md}")
    report = report_command(run, os.path.join(results, "report.zip"))
    lines.append(f"The reviewers' report: {report}  (unzip it, open report/report.html)")
    return "\n".join(lines) + "\n"


def error_summary(log_dir: str = "logs") -> str:
    """What to look at after a failed run (the jobs' logs are under ``log_dir``, the run's logs folder), and how to
    resume it."""
    folder = log_dir if log_dir.endswith("/") else f"{log_dir}/"
    return (
        "dpgrid: the run stopped. Each failed job's line above names its log file (traceback there, under "
        f"{folder}); the jobs that finished are kept: the same command resumes from where it stopped.\n"
    )
