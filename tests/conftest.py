"""Shared test fixtures: repository paths, the offline mirror, jobs with the real params of their rule.

The helpers that are not fixtures (paths, Snakemake environment, workflow copy) are in tests/helpers/repo.py;
tests import them as ``from tests.helpers.repo import REPO``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# One BLAS thread per test process (and, through the environment, per Snakemake subprocess): the suite runs in
# two pytest-xdist workers on two cores, and OpenBLAS' default of one spinning thread per core on top of that
# made the small-matrix numerics (statsmodels' Kalman filter, scipy's least squares) 5-20x slower on a loaded
# machine. Set before numpy/scipy load their BLAS (they read it once); an explicit setting is kept.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
# The kernels of the workflow's jobs (dpgrid.core.numerics), for this process and the Snakemake runs it starts.
from dpgrid.core.numerics import pin  # noqa: E402  (imports no numpy)

pin()

from hypothesis import settings  # noqa: E402

from tests.helpers.repo import REPO, SHARED_DATA, copy_workflow  # noqa: E402  (after the BLAS setting)

# Property tests explore new random inputs on every run (a developer's run can find a new failing case: the last
# one was an unclosed quote in a meter id). CI sets DPGRID_HYPOTHESIS_PROFILE=ci: the same inputs on every run
# (seeded from each test's name), so a submission is not failed by a case no change of it introduced. Loaded here,
# before the test modules are imported, so that their @settings(...) inherit it.
settings.register_profile("ci", derandomize=True)
if os.environ.get("DPGRID_HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["DPGRID_HYPOTHESIS_PROFILE"])


@pytest.fixture(autouse=True)
def _unfreeze_gc():
    """dpgrid.core.pipeline.run_script freezes the garbage collector's objects at the end of a job (the process then
    exits); tests run jobs in-process, so each test hands the frozen objects back to the collector."""
    yield
    import gc

    gc.unfreeze()


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The offline mirror of third-party files (../shared/data); tests needing it skip without it."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"offline mirror {SHARED_DATA} not present")
    return SHARED_DATA


# ---- jobs with the real params of their rule (the job contract: no config, only params) ----

QUICK_CONFIG = ["config/quick.yaml"]


@pytest.fixture(scope="session")
def workflow_copy(tmp_path_factory) -> Path:
    """One copy of the workflow per test session, for in-process DAG builds (tests/helpers/workflow_dag.py)."""
    return copy_workflow(tmp_path_factory.mktemp("workflow") / "wf")


@pytest.fixture(scope="session")
def rule_job(workflow_copy):
    """``rule_job(rule, wildcards=..., input=..., output=..., config=..., targets=...)``: a :class:`dpgrid.core.pipeline.Job` of
    ``rule`` with the params Snakemake gives it for config/quick.yaml (validated against the schema) merged
    with ``config`` overrides, and the given input/output files (mappings name -> path)."""
    from snakemake.iocontainers import Namedlist

    from dpgrid.core.pipeline import Job
    from tests.helpers.workflow_dag import plan

    plans: dict[str, dict] = {}

    def make(rule, *, wildcards=None, input=None, output=None, config=None, targets=None):
        # targets: plan only these (default: the default target); a config whose data a paper's jobs refuse
        # (too few meters) still plans the jobs that do not need them
        key = repr((config, targets))
        if key not in plans:
            extra = {"targets": list(targets)} if targets else {}
            plans[key] = plan(workflow_copy, configfiles=QUICK_CONFIG, config=config or {}, **extra)
        wc = {k: str(v) for k, v in (wildcards or {}).items()}
        # the job of replicate (0, 0), the run itself: its replicate wildcards (dpgrid.core.replicates) are empty
        planned = None
        for replicate in ({}, {"drep": ""}, {"drep": "", "nrep": ""}):
            planned = planned or plans[key].get((rule, tuple(sorted({**wc, **replicate}.items()))))
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


def pytest_collection_modifyitems(config, items):
    """Tests marked ``weekly`` (also ``pipeline``: never in the default run) run only when the ``-m`` expression
    names them (``python -m pytest -m weekly``, the weekly GitHub job); ``-m pipeline`` skips them."""
    if "weekly" in (config.option.markexpr or ""):
        return
    skip = pytest.mark.skip(reason="weekly end-to-end case: run with `python -m pytest -m weekly`")
    for item in items:
        if item.get_closest_marker("weekly") is not None:
            item.add_marker(skip)
