"""Data-layer rules (workflow/rules/data.smk): meter data per experiment and the downloads."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from dpgrid.data.download import fetch_archive_member, fetch_file_set, verify_unchanged
from dpgrid.data.sources import load_experiment_data
from dpgrid.seeds import job_rng

LOG = logging.getLogger(__name__)


def meter_data_job(job) -> None:
    """Rule ``meter_data``: build ``resources/meters/{experiment}/{readings,meters}.csv``.

    Everything is validated in memory before anything is written (a bad input writes nothing).
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
    md = load_experiment_data(
        spec,
        rng,
        resample=job.params.resample,
        input_path=input_path,
        name=experiment,
        **({} if job.params.plausible_kw is None else {"plausible_kw": job.params.plausible_kw}),
    )
    w = md.readings.groupby("meter_id")["kw"].mean()
    LOG.info(
        "%s: %d meters x %d readings (step %s); mean load per meter %.3f .. %.3f kW",
        experiment,
        len(md.meters),
        len(md.readings) // max(len(md.meters), 1),
        md.step,
        w.min(),
        w.max(),
    )
    md.save(job.output.readings, job.output.meters)


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
