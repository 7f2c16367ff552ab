"""The generated job-counts block of README.md and ARTIFACT.md (dpgrid.core.job_counts)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpgrid.core.job_counts import CONFIGURATIONS, JobCountsError, job_counts_md, parse_job_counts, planned_jobs

counts_st = st.fixed_dictionaries({name: st.integers(0, 10**6) for name in CONFIGURATIONS})


@given(counts_st)
def test_table_reads_back_as_the_counts_it_was_written_from(counts):
    assert parse_job_counts(job_counts_md(counts)) == counts


@given(counts_st, st.sampled_from(sorted(CONFIGURATIONS)))
def test_a_table_without_a_configuration_is_refused(counts, name):
    table = "\n".join(line for line in job_counts_md(counts).splitlines() if f"| {name} " not in line)
    with pytest.raises(JobCountsError, match="not a job-counts table"):
        parse_job_counts(table)
    with pytest.raises(JobCountsError, match=name):
        job_counts_md({k: v for k, v in counts.items() if k != name})


def test_a_plan_that_fails_names_the_command_and_its_error(tmp_path):
    (tmp_path / "Snakefile").write_text("rule all:\n    input: undefined_name\n")
    with pytest.raises(JobCountsError, match=r"(?s)-n --forceall .*exit 1.*undefined_name"):
        planned_jobs(tmp_path, [])
