"""The summary a run prints last (dpgrid.core.run_summary): claims counts per paper and verdict equal to the
claims table, the papers in their order, the claims files and the report command of the run."""

from __future__ import annotations

import re
import shlex

from hypothesis import given, settings
from hypothesis import strategies as st

from dpgrid.core.claims import VERDICTS, Claim, write_claims
from dpgrid.core.rebuild import RunOptions
from dpgrid.core.run_summary import error_summary, report_command, success_summary

PAPERS = ["classdp", "spdp", "dpkmeans", "blowfish"]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(PAPERS), st.sampled_from(VERDICTS)), min_size=1, max_size=40))
def test_counts_per_paper_and_verdict_are_the_tables(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("claims") / "claims.csv"
    claims = [
        Claim(f"c{i}", paper, "t", "d", "1", "1", "exact", verdict, "" if verdict == "reproduced" else "why")
        for i, (paper, verdict) in enumerate(rows)
    ]
    write_claims(claims, path)
    text = success_summary(path, PAPERS, RunOptions(("config/quick.yaml",)))
    lines = {m.group(1): m.group(0) for m in re.finditer(r"^\s+(\w+)\s+\d+ claims: .*$", text, flags=re.M)}
    present = [p for p in PAPERS if any(r[0] == p for r in rows)]
    assert list(lines) == present  # the papers' order, only those with claims
    for paper, line in lines.items():
        got = dict((v, int(n)) for n, v in re.findall(r"(\d+) (" + "|".join(map(re.escape, VERDICTS)) + ")", line))
        assert got == {v: sum(1 for p, w in rows if p == paper and w == v) for v in VERDICTS}
        assert int(re.search(r"(\d+) claims", line).group(1)) == sum(1 for p, _ in rows if p == paper)
    assert str(path.parent / "claims.md") in text
    # the report next to the run's claims table (results/report.zip; a named run's results/<name>/report.zip)
    report = shlex.join(["snakemake", "--report", str(path.parent / "report.zip"), "--configfile", "config/quick.yaml"])
    assert report in text


def test_report_command_carries_the_runs_configuration_and_a_missing_table_is_said(tmp_path):
    words = shlex.split(report_command(RunOptions(("config/quick.yaml", "my overlay.yaml"), {"seed": 3})))
    assert words == [
        "snakemake",
        "--report",
        "results/report.zip",
        "--configfile",
        "config/quick.yaml",
        "my overlay.yaml",
        "--config",
        "seed=3",
    ]
    assert report_command() == "snakemake --report results/report.zip"
    text = success_summary(tmp_path / "claims.csv", PAPERS)
    assert "No claims table yet" in text and "claims:" not in text
    assert "logs/" in error_summary() and "resumes" in error_summary()
