"""Shared test fixtures: repository paths and the offline mirror."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

# One BLAS thread per test process (and, through the environment, per Snakemake subprocess): the suite runs in
# two pytest-xdist workers on two cores, and OpenBLAS' default of one spinning thread per core on top of that
# made the small-matrix numerics (statsmodels' Kalman filter, scipy's least squares) 5-20x slower on a loaded
# machine. Set before numpy/scipy load their BLAS (they read it once); an explicit setting is kept.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

REPO = Path(__file__).resolve().parents[1]
# The offline mirror: DPGRID_MIRROR when set (e.g. from a worktree that is not next to shared/),
# else ../shared/data next to the checkout.
SHARED_DATA = Path(os.environ.get("DPGRID_MIRROR") or (REPO / ".." / "shared" / "data")).resolve()


def rules_files() -> list[Path]:
    """Every rules file: the framework's (workflow/rules/) and each paper's (workflow/papers/<paper>/)."""
    return sorted((REPO / "workflow" / "rules").glob("*.smk")) + sorted((REPO / "workflow" / "papers").glob("*/*.smk"))


if str(REPO / "src") not in sys.path:
    sys.path.insert(0, str(REPO / "src"))


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The offline mirror of third-party files (../shared/data); tests needing it skip without it."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"offline mirror {SHARED_DATA} not present")
    return SHARED_DATA


def snakemake_env(**extra: str) -> dict[str, str]:
    """Environment for Snakemake subprocesses: this checkout's package first, the offline mirror set."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    if SHARED_DATA.is_dir():
        env.setdefault("DPGRID_MIRROR", str(SHARED_DATA))
    env.update(extra)
    return env


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


# ---- jobs with the real params of their rule (the job contract: no config, only params) ----

QUICK_CONFIG = ["config/quick.yaml"]


@pytest.fixture(scope="session")
def workflow_copy(tmp_path_factory) -> Path:
    """One copy of the workflow per test session, for in-process DAG builds (tests/workflow_dag.py)."""
    return copy_workflow(tmp_path_factory.mktemp("workflow") / "wf")


@pytest.fixture(scope="session")
def rule_job(workflow_copy):
    """``rule_job(rule, wildcards=..., input=..., output=..., config=...)``: a :class:`dpgrid.core.pipeline.Job` of
    ``rule`` with the params Snakemake gives it for config/quick.yaml (validated against the schema) merged
    with ``config`` overrides, and the given input/output files (mappings name -> path)."""
    from snakemake.iocontainers import Namedlist
    from workflow_dag import plan

    from dpgrid.core.pipeline import Job

    plans: dict[str, dict] = {}

    def make(rule, *, wildcards=None, input=None, output=None, config=None):
        key = repr(config)
        if key not in plans:
            plans[key] = plan(workflow_copy, configfiles=QUICK_CONFIG, config=config or {})
        wc = {k: str(v) for k, v in (wildcards or {}).items()}
        planned = plans[key].get((rule, tuple(sorted(wc.items()))))
        if planned is None:
            known = sorted(w for r, w in plans[key] if r == rule)
            raise KeyError(f"no job of rule {rule} with wildcards {wc} in the plan (known: {known})")

        def files(d):
            d = {k: (list(map(str, v)) if isinstance(v, (list, tuple)) else str(v)) for k, v in (d or {}).items()}
            return Namedlist(fromdict=d)

        return Job(
            rule=rule,
            input=files(input),
            output=files(output),
            params=Namedlist(fromdict=dict(planned.param_values)),
            wildcards=Namedlist(fromdict=wc),
        )

    return make
