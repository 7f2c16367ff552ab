"""classdp, synthetic setting (Sec. VI-A of Ramakrishna et al., *Differential Privacy for Class-based Data*):
four labels, 2-D Gaussian queries with means on a line and Wishart(I, 2) covariances, all labels neighbours
(Figs. 1-2). The class model file (``model.npz``) the mechanism jobs read; see workflow/papers/classdp/classdp.md.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpgrid.core.io import write_table
from dpgrid.core.seeds import job_rng
from dpgrid.mechanisms.gaussian_class import (
    ClassGaussianModel,
    complete_edges_within_groups,
    save_class_model,
)
from dpgrid.papers.classdp.paper import PAPER, ClassdpConfigError

# ------------------------------------------------------------------------------------------
# synthetic setting (Sec. VI-A)


def synthetic_model(
    n_classes: int, dim: int, spacing: float, wishart_df: float, rng: np.random.Generator
) -> ClassGaussianModel:
    """Sec. VI-A: means ``i * spacing * u`` on a line (u = (1, ..., 1)/sqrt(dim)), covariances
    Wishart(I, df) (scipy), every label a neighbour of every other."""
    from scipy import stats

    if wishart_df < dim:
        raise ClassdpConfigError(
            f"config classdp.synthetic.wishart_df = {wishart_df} < dim = {dim}: the covariances would be singular"
        )
    u = np.ones(dim) / math.sqrt(dim)
    means = np.outer(np.arange(n_classes) * spacing, u)
    covs = np.array(
        [np.atleast_2d(stats.wishart(df=wishart_df, scale=np.eye(dim)).rvs(random_state=rng)) for _ in range(n_classes)]
    )
    return ClassGaussianModel(
        means, covs, complete_edges_within_groups([0] * n_classes), [f"class{i + 1}" for i in range(n_classes)]
    )


def synthetic_model_job(job) -> None:
    c = job.params.cfg["synthetic"]
    rng = job_rng(job.params.seed, PAPER, "synthetic_model")
    model = synthetic_model(c["n_classes"], c["dim"], c["mean_spacing"], c["wishart_df"], rng)
    save_class_model(job.output.model, model)
    rows = [
        {
            "label": model.label(i),
            **{f"mean{a}": model.means[i, a] for a in range(model.k)},
            **{f"cov{a}{b}": model.covs[i, a, b] for a in range(model.k) for b in range(model.k)},
        }
        for i in range(model.n)
    ]
    write_table(pd.DataFrame(rows), job.output.table)
