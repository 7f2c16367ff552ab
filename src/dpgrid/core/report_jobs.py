"""Report rules: the claims table, the claims over the replicates, and a result table over the replicates."""

from __future__ import annotations

import logging

from dpgrid.core.claims_over_seeds import write_claims_over_seeds
from dpgrid.core.claims_table import collect_claims
from dpgrid.core.spread import write_spread

LOG = logging.getLogger(__name__)


def claims_table(smk) -> None:
    summary = collect_claims(list(smk.input), smk.output.csv, smk.output.md)
    LOG.info("claims: %s", summary)
    print(summary)


def claims_over_seeds(smk) -> None:
    summary = write_claims_over_seeds(list(smk.input), smk.output.csv, smk.output.md)
    LOG.info("claims over seeds: %s", summary)
    print(summary)


def table_over_seeds(smk) -> None:
    spec = smk.params.spread
    summary = write_spread(list(smk.input), spec["keys"], spec["values"], smk.output.csv, smk.output.md, spec["title"])
    LOG.info("table over seeds: %s", summary)
    print(summary)
