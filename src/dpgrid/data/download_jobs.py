"""Download rules (workflow/rules/data.smk): the pinned public files, verified against their SHA-256.

Apart from :mod:`dpgrid.data.jobs` (the meter data), so that editing a meter data generator never changes the code
hash of a download rule (its jobs, and the feeder and OPF jobs after them, are not replanned).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from dpgrid.data.download import fetch_archive_member, fetch_file_set

LOG = logging.getLogger(__name__)


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
