"""The meter data rule (workflow/rules/data.smk): one experiment's readings and meters (downloads:
:mod:`dpgrid.data.download_jobs`)."""

from __future__ import annotations

import logging

from dpgrid.core.seeds import job_rng
from dpgrid.data.download import verify_unchanged
from dpgrid.data.sources import write_experiment_data

LOG = logging.getLogger(__name__)


def meter_data_job(job) -> None:
    """Rule ``meter_data``: build ``resources/meters/{experiment}/{readings,meters}.csv``.

    Everything is validated before the files are renamed into place (a bad input writes nothing); the
    ``synthetic`` source is generated, checked and written in blocks of meters (memory bounded whatever the
    number of meters; :func:`dpgrid.data.sources.write_experiment_data`).
    Params: ``spec`` (the experiment's ``data.experiments`` entry), ``resample`` and ``plausible_kw``
    (``data.resample``, ``data.plausible_kw``: real sources only) and ``seed`` (synthetic sources only: the
    stream is ``job_rng(seed, "data", experiment)``).
    """
    experiment = job.wildcards.experiment
    spec = job.params.spec
    rng = job_rng(job.params.seed, "data", experiment) if job.params.seed is not None else None
    input_path = job.input.get("raw")
    if input_path:
        verify_unchanged({input_path: None})  # against the digest recorded at download (input raw_digest)
    info = write_experiment_data(
        spec,
        rng,
        job.output.readings,
        job.output.meters,
        resample=job.params.resample,
        input_path=input_path,
        name=experiment,
        **({} if job.params.plausible_kw is None else {"plausible_kw": job.params.plausible_kw}),
    )
    LOG.info(
        "%s: %d meters x %d readings (step %s); mean load per meter %.3f .. %.3f kW",
        experiment,
        info["n_meters"],
        info["n_readings"] // max(info["n_meters"], 1),
        info["step"],
        info["mean_kw_min"],
        info["mean_kw_max"],
    )
