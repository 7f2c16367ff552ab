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
import functools
import hashlib
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
def _fast_parsing():
    """Two shortcuts while a plan is built, neither of which changes what Snakemake plans (a rebuild test compares
    with ``plan(..., fast=False)``): PyYAML's ``safe_load`` / ``load(..., FullLoader)`` through libyaml's parser
    (``CSafeLoader``, ``CFullLoader``: the same constructors and resolvers, so the same objects), and each rules
    file translated to Python once per test process (``snakemake.parser.parse`` is a function of the file's path
    and text, the rule count before it and the shell override; its result and line map are kept under those).
    With the pure-Python parser, YAML was about a quarter of a plan's CPU time and the rules files' translation
    about a third; the rebuild tests build some 330 plans."""
    import yaml
    from snakemake import workflow as smk_workflow

    saved_loaders = yaml.SafeLoader, yaml.FullLoader
    saved_parse = smk_workflow.parse
    if getattr(yaml, "__with_libyaml__", False):
        yaml.SafeLoader, yaml.FullLoader = yaml.CSafeLoader, yaml.CFullLoader
    smk_workflow.parse = functools.partial(_cached_parse, saved_parse)
    try:
        yield
    finally:
        yaml.SafeLoader, yaml.FullLoader = saved_loaders
        smk_workflow.parse = saved_parse


_PARSED: dict[tuple, tuple[str, int, dict[int, int]]] = {}


def _cached_parse(parse, path, workflow, linemap, overwrite_shellcmd=None, rulecount=0):
    from snakemake.parser import Shell

    name = path.get_path_or_uri(secret_free=True)
    try:
        text = Path(name).read_bytes()
    except OSError:  # not a local file: no shortcut
        return parse(path, workflow, linemap=linemap, overwrite_shellcmd=overwrite_shellcmd, rulecount=rulecount)
    key = (name, hashlib.sha256(text).digest(), overwrite_shellcmd, rulecount)
    if key not in _PARSED:
        lines: dict[int, int] = {}
        code, count = parse(path, workflow, linemap=lines, overwrite_shellcmd=overwrite_shellcmd, rulecount=rulecount)
        _PARSED[key] = (code, count, lines)
    Shell.overwrite_cmd = overwrite_shellcmd  # parse's side effect
    code, count, lines = _PARSED[key]
    linemap.update(lines)
    return code, count


def plan(
    workdir: Path,
    *,
    configfiles: list[str] | None = None,
    config: dict | None = None,
    targets: list[str] | None = None,
    fast: bool = True,
    snakefile: str = "Snakefile",
) -> dict[JobKey, PlannedJob]:
    """Every job needed for ``targets`` (default: ``all``) with its params and inputs. ``fast=False`` builds
    the plan exactly as Snakemake does, without the shortcuts of :func:`_fast_parsing` (the rebuild tests check
    that both give the same plan). ``snakefile``: the entry point, relative to ``workdir`` (``Snakefile`` or
    ``workflow/Snakefile``)."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, DAGSettings, OutputSettings, ResourceSettings

    workdir = Path(workdir)
    # Snakemake resolves --configfile paths against the current directory
    files = [(workdir / f) if not Path(f).is_absolute() else Path(f) for f in (configfiles or [])]
    sink = io.StringIO()
    root = logging.getLogger()
    saved = root.level
    shortcuts = _fast_parsing() if fast else contextlib.nullcontext()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink), shortcuts:
        try:
            with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
                wf_api = api.workflow(
                    resource_settings=ResourceSettings(cores=1),
                    config_settings=ConfigSettings(configfiles=files, config=config or {}),
                    snakefile=workdir / snakefile,
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
