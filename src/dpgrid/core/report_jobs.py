"""Report rules: the claims table."""

from __future__ import annotations

import logging

from dpgrid.core.claims_table import collect_claims

LOG = logging.getLogger(__name__)


def claims_table(smk) -> None:
    summary = collect_claims(list(smk.input), smk.output.csv, smk.output.md)
    LOG.info("claims: %s", summary)
    print(summary)
