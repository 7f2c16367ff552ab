"""The committed reference of the full configuration's claim verdicts, and the CI check against it.

``.ci/claims_reference.csv`` holds, for every row of the full configuration's ``results/claims.csv``, its
``claim_id``, ``paper``, ``target`` and ``verdict``. CI (``.ci/run`` after its full-configuration step, and the
GitHub workflow's full job) fails when a verdict changes, a claim appears or a claim disappears, unless the
reference is updated in the same change, so a change that flips a verdict says so in its diff::

    python -m dpgrid.core.claims_reference check results/claims.csv .ci/claims_reference.csv   # exit 1 on a change
    python -m dpgrid.core.claims_reference update results/claims.csv .ci/claims_reference.csv  # refresh (full run)
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from dpgrid.core.claims import read_claims
from dpgrid.core.io import write_table

REFERENCE_COLUMNS = ["claim_id", "paper", "target", "verdict"]


class ClaimsReferenceError(ValueError):
    """A reference table that cannot be read (missing columns, duplicated claim ids)."""


@dataclass(frozen=True)
class VerdictChange:
    claim_id: str
    reference: str | None  # None: a claim the reference does not have
    run: str | None  # None: a claim of the reference the run does not have

    def __str__(self) -> str:
        if self.reference is None:
            return f"{self.claim_id}: new claim ({self.run}), not in the reference"
        if self.run is None:
            return f"{self.claim_id}: in the reference ({self.reference}), missing from the run"
        return f"{self.claim_id}: {self.reference} -> {self.run}"


def reference_table(claims_csv: str | os.PathLike) -> pd.DataFrame:
    """The reference rows of a run's claims table (in its row order)."""
    claims = read_claims(claims_csv)
    return pd.DataFrame(
        [{c: getattr(claim, c) for c in REFERENCE_COLUMNS} for claim in claims], columns=REFERENCE_COLUMNS
    )


def read_reference(path: str | os.PathLike) -> dict[str, str]:
    """claim_id -> verdict of a committed reference table."""
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in REFERENCE_COLUMNS if c not in df.columns]
    if missing:
        raise ClaimsReferenceError(f"{path}: missing columns {missing}")
    dup = sorted(df.loc[df["claim_id"].duplicated(), "claim_id"])
    if dup:
        raise ClaimsReferenceError(f"{path}: claim ids listed twice: {dup}")
    return dict(zip(df["claim_id"], df["verdict"]))


def verdict_changes(reference: dict[str, str], run: dict[str, str]) -> list[VerdictChange]:
    """Every claim whose verdict differs between the reference and the run, or that only one of them has."""
    changes = [VerdictChange(cid, v, run.get(cid)) for cid, v in reference.items() if run.get(cid) != v]
    changes += [VerdictChange(cid, None, v) for cid, v in run.items() if cid not in reference]
    return changes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dpgrid.core.claims_reference",
        description="Compare a full run's claim verdicts with the committed reference, or refresh the reference.",
    )
    parser.add_argument("command", choices=["check", "update"])
    parser.add_argument("claims", help="the run's results/claims.csv (full configuration)")
    parser.add_argument("reference", help="the committed reference, .ci/claims_reference.csv")
    args = parser.parse_args(argv)
    table = reference_table(args.claims)
    if args.command == "update":
        write_table(table, args.reference)
        print(f"{args.reference}: {len(table)} claims from {args.claims}")
        return 0
    changes = verdict_changes(read_reference(args.reference), dict(zip(table["claim_id"], table["verdict"])))
    if changes:
        print(f"{args.claims}: {len(changes)} claim verdict(s) differ from {args.reference}:", file=sys.stderr)
        for change in changes:
            print(f"  {change}", file=sys.stderr)
        print(
            "If the change is intended, refresh the reference in the same change (after a full run):\n"
            f"  python -m dpgrid.core.claims_reference update {args.claims} {args.reference}",
            file=sys.stderr,
        )
        return 1
    print(f"{args.claims}: the {len(table)} claim verdicts match {args.reference}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
