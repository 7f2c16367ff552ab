"""Paths and workflow helpers shared by the tests (imported as ``tests.helpers.repo``; pytest fixtures stay in
tests/conftest.py): the repository root, the offline mirror, the rules files, the Snakemake subprocess
environment and a copy of the workflow for runs that must not touch the repository's results/."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Small files the tests read (tests/fixtures/README.md says what each is and how it was made).
FIXTURES = REPO / "tests" / "fixtures"
# The offline mirror: DPGRID_MIRROR when set (e.g. from a worktree that is not next to shared/),
# else ../shared/data next to the checkout.
SHARED_DATA = Path(os.environ.get("DPGRID_MIRROR") or (REPO / ".." / "shared" / "data")).resolve()


def rules_files() -> list[Path]:
    """Every rules file: the framework's (workflow/rules/) and each paper's (workflow/papers/<paper>/)."""
    return sorted((REPO / "workflow" / "rules").glob("*.smk")) + sorted((REPO / "workflow" / "papers").glob("*/*.smk"))


if str(REPO / "src") not in sys.path:
    sys.path.insert(0, str(REPO / "src"))


def snakemake_env(**extra: str) -> dict[str, str]:
    """Environment for Snakemake subprocesses: this checkout's package first, the offline mirror set."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    if SHARED_DATA.is_dir():
        env.setdefault("DPGRID_MIRROR", str(SHARED_DATA))
    env.update(extra)
    return env


def run_snakemake(wd: Path, targets: list[str], *options: str, configfile: str, timeout: int = 1500):
    """``python -m snakemake TARGETS --cores 1 OPTIONS --configfile CONFIGFILE --replace-workflow-config`` in the
    workflow copy ``wd`` (its own src/ first, the caller's offline mirror): (the completed process, seconds wall)."""
    import subprocess
    import time

    t0 = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            *targets,
            "--cores",
            "1",
            *options,
            "--configfile",
            configfile,
            "--replace-workflow-config",
        ],
        cwd=wd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=snakemake_env(PYTHONPATH=str(wd / "src"), DPGRID_MIRROR=os.environ.get("DPGRID_MIRROR", "")),
    )
    return proc, time.perf_counter() - t0


def copy_workflow(dest: Path) -> Path:
    """A copy of this checkout's workflow at ``dest`` (Snakefile, workflow/, config/, src/,
    environment.yml; no outputs, logs or Snakemake state), for runs that must not touch the
    repository's results/. Used by the end-to-end tests and benchmarks/bench_scale.py."""
    dest.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", ".snakemake", "results", "resources", "logs")
    for name in ("Snakefile", "workflow", "config", "src", "environment.yml"):
        src = REPO / name
        (shutil.copytree if src.is_dir() else shutil.copy)(
            src, dest / name, **({"ignore": ignore} if src.is_dir() else {})
        )
    return dest
