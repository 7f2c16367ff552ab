"""Every figure of the quick configuration, redrawn from a finished quick run's result tables, passes the layout
check (dpgrid.figures.layout). The run is the repository's own quick run (results/quick/) or the checkout in
DPGRID_QUICK_RUN;
a figure whose tables that run does not hold is skipped (no run yet)."""

import os
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from dpgrid.figures.layout import layout_problems
from tests.helpers.figure_jobs import figure_jobs, missing_inputs, render
from tests.helpers.repo import REPO

RUN = Path(os.environ.get("DPGRID_QUICK_RUN", REPO))
JOBS = figure_jobs(REPO, ["config/quick.yaml"])


def test_every_paper_has_figures():
    assert {j.rule for j in JOBS} >= {"blowfish_figure", "classdp_figure", "dpkmeans_figure", "spdp_figure"}


@pytest.mark.parametrize("job", JOBS, ids=[j.outputs[0] for j in JOBS])
def test_quick_figure_layout(job):
    missing = missing_inputs(job, RUN)
    if missing:
        pytest.skip(f"{RUN} holds no {missing[0]} (no quick run there)")
    fig = render(job, RUN)
    try:
        problems = layout_problems(fig)
    finally:
        plt.close(fig)
    assert not problems, "\n".join(map(str, problems))
