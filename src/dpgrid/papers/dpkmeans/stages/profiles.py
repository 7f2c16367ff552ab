"""dpkmeans stage: the daily load profiles (25 hourly values per meter, Ravi et al. Sec. V-A)."""

from __future__ import annotations

import logging

from dpgrid.core.io import write_table
from dpgrid.data.profiles import daily_profiles_from_files

LOG = logging.getLogger(__name__)


def profiles_job(job) -> None:
    # read and checked in blocks of meters (memory bounded whatever the number of meters)
    prof = daily_profiles_from_files(job.input.readings, job.input.meters)
    LOG.info("daily profiles: %d meters x 25 hours", len(prof))
    write_table(prof, job.output.profiles)
