"""The committed reference of the full configuration's claim verdicts, and the CI check against it.

Each paper's ``workflow/papers/<paper>/claims_reference.csv`` holds, for every row of that paper in the full
configuration's ``results/claims.csv``, its ``claim_id``, ``paper``, ``target`` and ``verdict``, so a paper's
reference lives in its own folder. CI (``.ci/run`` after its full-configuration step, and the GitHub workflow's
full job) fails when a verdict changes, a claim appears or a claim disappears, unless the reference is updated in
the same change, so a change that flips a verdict says so in its diff::

    python -m dpgrid.core.claims_reference check results/claims.csv workflow/papers   # exit 1 on a change
    python -m dpgrid.core.claims_reference update results/claims.csv workflow/papers  # refresh (full run)

The reference argument is either the papers' folder (one ``<paper>/claims_reference.csv`` per paper) or one CSV
file holding every paper's rows.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from dpgrid.core.claims import read_claims
from dpgrid.core.io import write_table

REFERENCE_COLUMNS = ["claim_id", "paper", "target", "verdict"]

#: A paper's reference file inside its workflow folder (``workflow/papers/<paper>/``).
PAPER_REFERENCE = "claims_reference.csv"


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


def _read_reference_file(path: Path) -> pd.DataFrame:
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in REFERENCE_COLUMNS if c not in df.columns]
    if missing:
        raise ClaimsReferenceError(f"{path}: missing columns {missing}")
    return df


def reference_files(reference: str | os.PathLike) -> list[Path]:
    """The reference files behind ``reference``: the file itself, or every ``<paper>/claims_reference.csv`` of a
    papers' folder (sorted by paper)."""
    reference = Path(reference)
    if reference.is_dir():
        return sorted(reference.glob(f"*/{PAPER_REFERENCE}"))
    return [reference]


def read_reference(path: str | os.PathLike) -> dict[str, str]:
    """claim_id -> verdict of a committed reference: one file, or a papers' folder of per-paper files (each
    file's rows must belong to the paper whose folder holds it)."""
    files = reference_files(path)
    if not files:
        raise ClaimsReferenceError(f"{path}: no <paper>/{PAPER_REFERENCE} in this folder")
    per_paper = Path(path).is_dir()
    frames = []
    for file in files:
        df = _read_reference_file(file)
        if per_paper:
            strangers = sorted(set(df["paper"]) - {file.parent.name})
            if strangers:
                raise ClaimsReferenceError(
                    f"{file}: rows of paper(s) {strangers} in the reference of paper {file.parent.name!r}"
                )
        frames.append(df)
    df = pd.concat(frames, ignore_index=True)
    dup = sorted(df.loc[df["claim_id"].duplicated(), "claim_id"])
    if dup:
        raise ClaimsReferenceError(f"{path}: claim ids listed twice: {dup}")
    return dict(zip(df["claim_id"], df["verdict"]))


def write_reference(table: pd.DataFrame, reference: str | os.PathLike) -> list[Path]:
    """Write a run's reference rows to one file, or, for a papers' folder, each paper's rows to
    ``<paper>/claims_reference.csv`` (the paper's folder must exist). Returns the files written."""
    reference = Path(reference)
    if not reference.is_dir():
        write_table(table, reference)
        return [reference]
    written = []
    for paper, rows in table.groupby("paper", sort=False):
        folder = reference / str(paper)
        if not folder.is_dir():
            raise ClaimsReferenceError(f"{reference}: no folder {paper!r} for the claims of paper {paper!r}")
        write_table(rows.reset_index(drop=True), folder / PAPER_REFERENCE)
        written.append(folder / PAPER_REFERENCE)
    return written


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
    parser.add_argument(
        "reference", help="the committed reference: the papers' folder workflow/papers (or one CSV file)"
    )
    args = parser.parse_args(argv)
    table = reference_table(args.claims)
    if args.command == "update":
        written = write_reference(table, args.reference)
        print(f"{args.reference}: {len(table)} claims from {args.claims} in {len(written)} file(s)")
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
