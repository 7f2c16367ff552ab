"""classdp, the within-cluster-similarity sweep (workflow/papers/classdp/classdp.md): per similarity of the stand-in,
its meter data, the delta of the white, proposed and no-noise releases on the forecast class model at the sweep's
eps (one job per part), one table per point, then one table over the points.
"""

from __future__ import annotations

import logging

import pandas as pd

from dpgrid.core.io import read_table, write_table
from dpgrid.core.seeds import job_rng
from dpgrid.mechanisms.gaussian_class import (
    load_class_model,
)
from dpgrid.papers.classdp.paper import STANDIN_SOURCE, ClassdpConfigError

LOG = logging.getLogger(__name__)

# ------------------------------------------------------------------------------------------
# fidelity sweeps and tables


def similarity_sweep_data_job(job) -> None:
    """Meter data of one point of the within-cluster-similarity sweep: the stand-in's data as the ``meter_data``
    rule makes them (same random stream ``job_rng(seed, "data", <data source>)``) with the similarity replaced.
    The point's forecast chain then runs through the main chain's rules (sharded ARMA fits, forecast model)."""
    from dpgrid.data.sources import write_experiment_data
    from dpgrid.papers.classdp import standin

    if job.params.data.get("source") != STANDIN_SOURCE:
        raise ClassdpConfigError(
            f"data.experiments.{job.params.data_source}.source must be {STANDIN_SOURCE} to vary its "
            f"within_cluster_similarity, got {job.params.data.get('source')!r}"
        )
    spec = dict(job.params.data, within_cluster_similarity=float(job.params.similarity))
    name = job.params.data_source
    write_experiment_data(
        spec, job_rng(job.params.seed, "data", name), job.output.readings, job.output.meters, name=name, module=standin
    )


#: wildcard ``part`` of the sweep job that computes the no-noise curve (the other parts are ``rho<label>``)
SWEEP_NO_NOISE_PART = "no_noise"


def similarity_sweep_part_job(job) -> None:
    """Part of one point of the within-cluster-similarity sweep: delta at the sweep's eps of the white and proposed
    mechanisms at one rho (wildcard ``part`` = ``rho<label>``, its value ``params.rho``), or of the no-noise release
    (``part`` = ``no_noise``), on the forecast class model of the stand-in at this similarity
    (workflow/papers/classdp/classdp.md)."""
    from dpgrid.papers.classdp.calibration import similarity_deltas

    cfg = job.params.cfg
    no_noise = job.wildcards.part == SWEEP_NO_NOISE_PART
    df = similarity_deltas(
        load_class_model(job.input.model),
        cfg,
        rhos=[] if no_noise else [float(job.params.rho)],
        eps=cfg["forecast"]["similarity_sweep"]["epsilons"],
        mechanisms=("no_noise",) if no_noise else ("white", "proposed"),
    )
    write_table(df, job.output.table)


def similarity_sweep_point_job(job) -> None:
    """One point of the within-cluster-similarity sweep: its parts (no-noise curve, then each rho in
    ``classdp.forecast.rhos`` order) with the similarity and the model's size
    (:func:`dpgrid.papers.classdp.calibration.similarity_table`; the rows of ``similarity_point``)."""
    from dpgrid.papers.classdp.calibration import similarity_table

    parts = pd.concat([read_table(f, dtype={"worst_label": str, "worst_neighbour": str}) for f in job.input.parts])
    df = similarity_table(float(job.params.similarity), load_class_model(job.input.model), parts.reset_index(drop=True))
    write_table(df, job.output.table)


#: columns of the similarity sweep table (dpgrid.papers.classdp.calibration.similarity_point)
SIMILARITY_SWEEP_COLUMNS = [
    "similarity",
    "mechanism",
    "rho",
    "epsilon",
    "delta",
    "worst_label",
    "worst_neighbour",
    "households",
    "edges",
    "median_trace_sigma",
]


def similarity_sweep_job(job) -> None:
    """Merge the points of the similarity sweep (in sweep order) into one table."""
    from dpgrid.core.sweeps import concat_sweep_points

    sw = job.params.cfg["forecast"]["similarity_sweep"]
    if job.params.source != STANDIN_SOURCE or not sw["similarities"]:  # nothing to vary, or no point asked for
        LOG.warning(
            "the similarity sweep is empty: %s",
            f"data source {job.params.source} is not the stand-in {STANDIN_SOURCE}"
            if job.params.source != STANDIN_SOURCE
            else "classdp.forecast.similarity_sweep.similarities is empty",
        )
        write_table(pd.DataFrame(columns=SIMILARITY_SWEEP_COLUMNS), job.output.table)
        return
    write_table(
        concat_sweep_points(
            job.input.points, "similarity", sw["similarities"], "classdp.forecast.similarity_sweep.similarities"
        ),
        job.output.table,
    )
