"""Data-layer rules (workflow/rules/data.smk): meter data per experiment and the downloads."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from dpgrid.core.seeds import job_rng
from dpgrid.data.download import fetch_archive_member, fetch_file_set, verify_unchanged
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


def download_archive_member_job(job) -> None:
    """Rules ``download_uci_household`` / ``download_uci_eld``: the dataset's text file, verified."""
    spec = job.params.pin
    mirror = Path(job.params.mirror) if job.params.mirror else None
    LOG.info("%s: %s", job.params.dataset, f"mirror {mirror}" if mirror else f"download {spec['url']}")
    fetch_archive_member(spec, job.output[0], mirror=mirror)


def download_ieee123_job(job) -> None:
    """Rule ``download_ieee123``: the OpenDSS files of the IEEE 123-node feeder, folder layout kept."""
    spec = job.params.pin
    mirror = Path(job.params.mirror) if job.params.mirror else None
    out_dir = Path(os.path.commonpath([str(p) for p in job.output]))  # the folder holding the file set
    LOG.info("ieee123: %s", f"mirror {mirror}/{spec['mirror_dir']}" if mirror else f"download {spec['base_url']}")
    fetch_file_set(spec["base_url"], spec["files"], out_dir, mirror=mirror, mirror_dir=spec["mirror_dir"])
