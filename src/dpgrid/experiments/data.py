"""Data-layer rules (workflow/rules/data.smk): meter data per experiment and the downloads."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from dpgrid.data.download import fetch_archive_member, fetch_file_set, mirror_root
from dpgrid.data.sources import load_experiment_data
from dpgrid.seeds import job_rng

LOG = logging.getLogger(__name__)


def meter_data_job(smk) -> None:
    """Rule ``meter_data``: build ``resources/meters/{experiment}/{readings,meters}.csv``.

    Everything is validated in memory before anything is written (a bad input writes nothing);
    the random stream is ``job_rng(seed, "data", experiment)``.
    """
    experiment = smk.wildcards.experiment
    cfg = smk.config["data"]
    spec = cfg["experiments"][experiment]
    rng = job_rng(smk.config["seed"], "data", experiment)
    input_path = smk.input.get("raw")
    md = load_experiment_data(spec, rng, resample=cfg["resample"], input_path=input_path, name=experiment)
    w = md.readings.groupby("meter_id")["kw"].mean()
    LOG.info("%s: %d meters x %d readings (step %s); mean load per meter %.3f .. %.3f kW",
             experiment, len(md.meters), len(md.readings) // max(len(md.meters), 1), md.step, w.min(), w.max())
    md.save(smk.output.readings, smk.output.meters)


def download_archive_member_job(smk) -> None:
    """Rules ``download_uci_household`` / ``download_uci_eld``: the dataset's text file, verified."""
    cfg = smk.config["data"]
    spec = cfg["downloads"][smk.params.dataset]
    mirror = mirror_root(cfg["mirror"])
    LOG.info("%s: %s", smk.params.dataset, f"mirror {mirror}" if mirror else f"download {spec['url']}")
    fetch_archive_member(spec, smk.output[0], mirror=mirror)


def download_ieee123_job(smk) -> None:
    """Rule ``download_ieee123``: the OpenDSS files of the IEEE 123-node feeder, folder layout kept."""
    cfg = smk.config["data"]
    spec = cfg["downloads"]["ieee123"]
    mirror = mirror_root(cfg["mirror"])
    out_dir = Path(os.path.commonpath([str(p) for p in smk.output]))  # the folder holding the file set
    LOG.info("ieee123: %s", f"mirror {mirror}/{spec['mirror_dir']}" if mirror else f"download {spec['base_url']}")
    fetch_file_set(spec["base_url"], spec["files"], out_dir, mirror=mirror, mirror_dir=spec["mirror_dir"])
