"""End-to-end: the quick pipeline runs and its result tables do not depend on the core count.

Marked ``pipeline`` (minutes). Each run happens in its own copy of the workflow so that the
repository's results/ is untouched and nothing is shared between the two runs.
"""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.repo import copy_workflow, snakemake_env

TABLE_SUFFIXES = {".csv", ".json", ".md", ".tsv"}


def run_quick(workdir: Path, cores: int) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "--cores",
            str(cores),
            "--configfile",
            "config/quick.yaml",
            "--quiet",
            "progress",
        ],
        cwd=workdir,
        capture_output=True,
        text=True,
        env=snakemake_env(PYTHONPATH=str(workdir / "src")),
    )


def table_digests(results: Path) -> dict[str, str]:
    return {
        str(p.relative_to(results)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(results.rglob("*"))
        if p.suffix in TABLE_SUFFIXES
    }


@pytest.mark.pipeline
@pytest.mark.skipif(
    os.environ.get("DPGRID_CI_FULL_DETERMINISM") == "1",
    reason="CI checks the same property in .ci/check_resume (the quick configuration with --cores 1 against CI's "
    "--cores 2 run); the full configuration's two runs are .ci/check_full_determinism",
)
def test_quick_pipeline_identical_with_one_and_two_cores(tmp_path):
    digests = {}
    for cores in (1, 2):
        wd = copy_workflow(tmp_path / f"cores{cores}")
        proc = run_quick(wd, cores)
        assert proc.returncode == 0, f"quick pipeline failed with --cores {cores}:\n{proc.stderr[-6000:]}"
        digests[cores] = table_digests(wd / "results" / "quick")  # config/quick.yaml names the run quick
        assert (wd / "results" / "quick" / "claims.md").is_file()
    assert len(digests[1]) > 10, f"too few result tables: {sorted(digests[1])}"
    assert sorted(digests[1]) == sorted(digests[2])
    differing = sorted(k for k in digests[1] if digests[1][k] != digests[2][k])
    assert differing == [], f"result tables differ between --cores 1 and --cores 2: {differing}"
