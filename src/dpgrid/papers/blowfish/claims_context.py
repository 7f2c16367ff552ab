"""The context of the blowfish claims job (:func:`dpgrid.papers.blowfish.claims.claims_job`; GhoddousiBoroujeni
et al., *Privacy of Real-Time Pricing in Smart Grid*): the run's tables, read once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from dpgrid.core.io import read_table


@dataclass(kw_only=True)
class ClaimsContext:
    """What the measures of :data:`dpgrid.papers.blowfish.claims.CLAIMS` read (built by :func:`claims_context`)."""

    #: per seed and mechanism: the RMSRE of the released prices (runs.csv)
    runs: pd.DataFrame
    #: the runs of the zero-threshold sweep (zero_sweep_runs.csv)
    sweep: pd.DataFrame
    #: the adversary's information gain per seed (adversary_runs.csv)
    adversary: pd.DataFrame
    #: the drawn day's occupancy and noise parameters per step (profiles.csv)
    profiles: pd.DataFrame
    #: the blowfish section of the config
    cfg: Mapping[str, Any]
    #: the paper's rows of results/privacy_audits.csv
    privacy_audits: pd.DataFrame | None = None


def claims_context(job) -> ClaimsContext:
    """The run's tables (the blowfish_claims rule's input files) and the paper's section of the config."""
    return ClaimsContext(
        runs=read_table(job.input.runs),
        sweep=read_table(job.input.sweep),
        privacy_audits=read_table(job.input.privacy_audits),
        adversary=read_table(job.input.adversary),
        profiles=read_table(job.input.profiles),
        cfg=job.params.cfg,
    )
