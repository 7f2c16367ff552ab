"""Two runs with different names never touch each other's files (marked ``pipeline``; about 30 s).

Run A is the quick configuration (run name ``quick``); run B is the quick configuration with an overlay that
names the run ``other`` and draws with another root seed. Both build the same two cheap targets: a synthesised
meter data set (config-dependent data, ``resources/<run>/meters/``) and one blowfish seed (``results/<run>/``),
with their logs and benchmark files. After B, every file A wrote is byte-identical and unmodified, and
``snakemake -n`` for A has nothing to do.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import yaml

from dpgrid.core.config import merge_config
from tests.helpers.repo import copy_workflow, run_snakemake

pytestmark = pytest.mark.pipeline

#: the run folders of each run (dpgrid.core.config.RUN_FOLDERS)
FOLDERS = ("results", "resources", "logs", "benchmarks")


def _targets(run: str) -> list[str]:
    return [
        f"resources/{run}/meters/classdp_forecast/readings.csv",
        f"results/{run}/blowfish/seeds/runs_seed0.csv",
    ]


def _state(wd: Path, run: str) -> dict[str, tuple[str, int]]:
    """``{path: (sha256, mtime_ns)}`` of every file in the run's folders."""
    out = {}
    for folder in FOLDERS:
        for p in sorted((wd / folder / run).rglob("*")):
            if p.is_file():
                out[p.relative_to(wd).as_posix()] = (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
    return out


def _run(wd: Path, targets: list[str], configfile: str, *options: str):
    # --configfile replaces config.yaml (run_snakemake passes --replace-workflow-config): give the merged config
    proc, _ = run_snakemake(wd, targets, *options, configfile=configfile, timeout=600)
    return proc


def test_a_run_with_another_name_and_seed_leaves_the_first_runs_files_alone(tmp_path):
    wd = copy_workflow(tmp_path / "wf")
    base = yaml.safe_load((wd / "config" / "config.yaml").read_text())
    quick = yaml.safe_load((wd / "config" / "quick.yaml").read_text())
    config_a = merge_config(base, quick)
    assert config_a["run"]["name"] == "quick"
    config_b = merge_config(config_a, {"run": {"name": "other"}, "seed": config_a["seed"] + 1})
    (wd / "config" / "a.yaml").write_text(yaml.safe_dump(config_a, sort_keys=False))
    (wd / "config" / "b.yaml").write_text(yaml.safe_dump(config_b, sort_keys=False))

    a = _run(wd, _targets("quick"), "config/a.yaml", "--quiet", "progress")
    assert a.returncode == 0, a.stderr[-3000:]
    before = _state(wd, "quick")
    assert set(_targets("quick")) <= set(before)
    assert any(p.startswith("logs/quick/") for p in before) and any(p.startswith("benchmarks/quick/") for p in before)

    b = _run(wd, _targets("other"), "config/b.yaml", "--quiet", "progress")
    assert b.returncode == 0, b.stderr[-3000:]
    after_b = _state(wd, "other")
    assert set(_targets("other")) <= set(after_b)
    # another seed: other data and draws, in B's own files
    for a_file, b_file in zip(_targets("quick"), _targets("other")):
        assert before[a_file][0] != after_b[b_file][0], (a_file, b_file)

    assert _state(wd, "quick") == before  # same bytes, not rewritten
    # nothing of either run outside its own folders (the shared downloads aside)
    for folder in FOLDERS:
        for p in (wd / folder).iterdir():
            assert p.name in ("quick", "other", "downloads"), p
    plan_a = _run(wd, _targets("quick"), "config/a.yaml", "-n")
    assert plan_a.returncode == 0 and "Nothing to be done" in plan_a.stdout + plan_a.stderr, plan_a.stdout[-3000:]
