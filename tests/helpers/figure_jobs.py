"""The workflow's figure jobs, rendered in-process from a finished run's result tables.

:func:`figure_jobs` plans the figure rules' jobs of a configuration (:func:`tests.helpers.workflow_dag.plan`);
:func:`render` calls the job's figure function with its input tables (paths resolved in the run's directory)
and params, and returns the matplotlib figure, unsaved.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import SimpleNamespace

from tests.helpers.workflow_dag import PlannedJob, plan

#: Figure rule -> module whose ``FIGURES`` registry draws the rule's figures.
FIGURE_RULES = {
    "blowfish_figure": "dpgrid.papers.blowfish.figures",
    "classdp_figure": "dpgrid.papers.classdp.figures",
    "dpkmeans_figure": "dpgrid.papers.dpkmeans.figures",
    "dpkmeans_voltage_figure": "dpgrid.papers.dpkmeans.opf.figures",
    "peers_figure": "dpgrid.papers.dpkmeans.peers.figures",
    "spdp_figure": "dpgrid.papers.spdp.figures",
}


def figure_jobs(workdir: Path, configfiles: list[str]) -> list[PlannedJob]:
    """The figure jobs of ``all`` for the configuration, sorted by output."""
    jobs = [j for j in plan(workdir, configfiles=configfiles).values() if j.rule in FIGURE_RULES]
    return sorted(jobs, key=lambda j: j.outputs)


def _resolve(value, run_dir: Path):
    if isinstance(value, (list, tuple)):
        return [_resolve(v, run_dir) for v in value]
    return str(run_dir / value) if not os.path.isabs(str(value)) else str(value)


def missing_inputs(job: PlannedJob, run_dir: Path) -> list[str]:
    """The job's input files absent from ``run_dir`` (a run that did not produce them)."""
    return [f for f in job.inputs if not (run_dir / f).exists()]


def render(job: PlannedJob, run_dir: Path):
    """The job's figure, drawn by its paper's figure function from the tables in ``run_dir``."""
    figures = importlib.import_module(FIGURE_RULES[job.rule]).FIGURES
    inp = SimpleNamespace(**{k: _resolve(v, run_dir) for k, v in job.input_names.items()})
    return figures[job.wildcards["fig"]](inp, SimpleNamespace(**job.param_values))
