"""The workflow's jobs as Snakemake plans them, built in-process (no subprocess, no job run).

:func:`plan` parses the Snakefile of a workflow copy with a given config (files and ``--config``
overrides), builds the DAG of every job of ``all`` (as with ``--forceall``) and returns, per job,
what Snakemake's rerun triggers compare: the params (serialised exactly as Snakemake stores them
in its metadata, ``persistence._params``) and the set of input files. Two plans differ for a job
when Snakemake would rerun it after the change (params or input trigger), or when the job is new.

Used by the rebuild tests (tests/workflow/test_rebuild_triggers.py) and to build :class:`dpgrid.core.pipeline.Job`
objects with the real params of a rule (:func:`job_for`).
"""

from __future__ import annotations

import contextlib
import io
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

JobKey = tuple[str, tuple[tuple[str, str], ...]]


@dataclass(frozen=True)
class PlannedJob:
    rule: str
    wildcards: dict[str, str]
    params: tuple[str, ...]  # serialised as in Snakemake's metadata
    param_values: dict[str, Any]  # name -> value
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    input_names: dict[str, Any]
    output_names: dict[str, Any]
    snakefile: str  # the rules file that defines the rule
    logs: tuple[str, ...] = ()
    benchmark: str | None = None


@contextlib.contextmanager
def _libyaml_loaders():
    """PyYAML's ``safe_load`` / ``load(..., FullLoader)`` through libyaml's parser (``CSafeLoader``,
    ``CFullLoader``: the same constructors and resolvers, so the same objects) while a plan is built. Parsing
    the config, schema and caption files was about a quarter of a plan's CPU time with the pure-Python parser;
    the rebuild tests build some 330 plans. Without libyaml, nothing changes."""
    import yaml

    if not getattr(yaml, "__with_libyaml__", False):
        yield
        return
    saved = yaml.SafeLoader, yaml.FullLoader
    yaml.SafeLoader, yaml.FullLoader = yaml.CSafeLoader, yaml.CFullLoader
    try:
        yield
    finally:
        yaml.SafeLoader, yaml.FullLoader = saved


def plan(
    workdir: Path,
    *,
    configfiles: list[str] | None = None,
    config: dict | None = None,
    targets: list[str] | None = None,
    libyaml: bool = True,
) -> dict[JobKey, PlannedJob]:
    """Every job needed for ``targets`` (default: ``all``) with its params and inputs. ``libyaml=False``
    parses the YAML files with PyYAML's pure-Python parser, as Snakemake does by default (the rebuild tests check
    that both give the same plan)."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, DAGSettings, OutputSettings, ResourceSettings

    workdir = Path(workdir)
    # Snakemake resolves --configfile paths against the current directory
    files = [(workdir / f) if not Path(f).is_absolute() else Path(f) for f in (configfiles or [])]
    sink = io.StringIO()
    root = logging.getLogger()
    saved = root.level
    loaders = _libyaml_loaders() if libyaml else contextlib.nullcontext()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink), loaders:
        try:
            with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
                wf_api = api.workflow(
                    resource_settings=ResourceSettings(cores=1),
                    config_settings=ConfigSettings(configfiles=files, config=config or {}),
                    snakefile=workdir / "Snakefile",
                    workdir=workdir,
                )
                dag_api = wf_api.dag(dag_settings=DAGSettings(targets=set(targets or []), forceall=True))
                wf = dag_api.workflow_api._workflow
                wf._prepare_dag(forceall=True, ignore_incomplete=True, lock_warn_only=True)
                wf._build_dag()
                out: dict[JobKey, PlannedJob] = {}
                for job in wf.dag.jobs:
                    wc = {k: str(v) for k, v in job.wildcards_dict.items()}
                    key = (job.rule.name, tuple(sorted(wc.items())))
                    out[key] = PlannedJob(
                        rule=job.rule.name,
                        wildcards=wc,
                        params=tuple(wf.persistence._params(job)),
                        param_values=dict(job.params.items()),
                        inputs=tuple(sorted(map(str, job.input))),
                        outputs=tuple(map(str, job.output)),
                        input_names=dict(job.input.items()),
                        output_names=dict(job.output.items()),
                        snakefile=str(job.rule.snakefile),
                        logs=tuple(map(str, job.log)),
                        benchmark=str(job.benchmark) if job.benchmark else None,
                    )
                return out
        finally:
            root.setLevel(saved)


def planned_after_change(before: dict[JobKey, PlannedJob], after: dict[JobKey, PlannedJob]) -> set[JobKey]:
    """Jobs Snakemake would run after a change, given a finished run of ``before``: new jobs, and jobs whose
    params or set of input files changed (its default rerun triggers besides mtime and code)."""
    out = set()
    for key, job in after.items():
        old = before.get(key)
        if old is None or old.params != job.params or old.inputs != job.inputs:
            out.add(key)
    return out
