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

A claim whose value sits so close to its tolerance that the last bits of the arithmetic decide its verdict gets a
second accepted verdict in the optional column ``verdict_other_machine``: the verdict that the same code and
configuration compute on another kind of machine (another CPU, where the kernels round differently; README.md,
"Results across machines"). The check accepts either and names the claims that took the other one; ``update``
keeps the pair (a run on the other machine swaps the two). Such a claim's verdict over the replicates
(docs/claims_over_seeds.md, the verdict ARTIFACT.md reports) does not rest on one draw's last bits: a test allows
a pair only on a claim whose verdict over seeds is ``seed-dependent``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from dpgrid.core.claims import VERDICTS, read_claims
from dpgrid.core.io import write_table

REFERENCE_COLUMNS = ["claim_id", "paper", "target", "verdict"]
#: the optional column of a second accepted verdict (computed on another kind of machine; empty if none)
OTHER_MACHINE = "verdict_other_machine"

#: A paper's reference file inside its workflow folder (``workflow/papers/<paper>/``).
PAPER_REFERENCE = "claims_reference.csv"


class ClaimsReferenceError(ValueError):
    """A reference table that cannot be read (missing columns, duplicated claim ids)."""


@dataclass(frozen=True)
class VerdictChange:
    claim_id: str
    reference: str | None  # None: a claim the reference does not have
    run: str | None  # None: a claim of the reference the run does not have
    other_machine: str = ""  # the reference's second accepted verdict, if any

    def __str__(self) -> str:
        if self.reference is None:
            return f"{self.claim_id}: new claim ({self.run}), not in the reference"
        if self.run is None:
            return f"{self.claim_id}: in the reference ({self.reference}), missing from the run"
        also = f" (or {self.other_machine} on another machine)" if self.other_machine else ""
        return f"{self.claim_id}: {self.reference}{also} -> {self.run}"


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
    if OTHER_MACHINE not in df.columns:
        df[OTHER_MACHINE] = ""
    unknown = sorted(set(df["verdict"]) - set(VERDICTS)) + sorted(set(df[OTHER_MACHINE]) - set(VERDICTS) - {""})
    if unknown:
        raise ClaimsReferenceError(f"{path}: unknown verdict(s) {unknown}; a verdict is one of {list(VERDICTS)}")
    same = df.loc[df["verdict"] == df[OTHER_MACHINE], "claim_id"].tolist()
    if same:
        raise ClaimsReferenceError(f"{path}: {OTHER_MACHINE} repeats the verdict of claim(s) {same}")
    return df[[*REFERENCE_COLUMNS, OTHER_MACHINE]]


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
    return _verdicts(_reference_frame(path))[0]


def read_other_machine(path: str | os.PathLike) -> dict[str, str]:
    """claim_id -> the second accepted verdict (column ``verdict_other_machine``), for the claims that have one."""
    return _verdicts(_reference_frame(path))[1]


def _verdicts(frame: pd.DataFrame) -> tuple[dict[str, str], dict[str, str]]:
    """claim_id -> verdict of every row of a reference, and claim_id -> second verdict of the rows with one."""
    pairs = frame[frame[OTHER_MACHINE] != ""]
    return dict(zip(frame["claim_id"], frame["verdict"])), dict(zip(pairs["claim_id"], pairs[OTHER_MACHINE]))


def _reference_frame(path: str | os.PathLike) -> pd.DataFrame:
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
    return df


def write_reference(table: pd.DataFrame, reference: str | os.PathLike) -> list[Path]:
    """Write a run's reference rows to one file, or, for a papers' folder, each paper's rows to
    ``<paper>/claims_reference.csv`` (the paper's folder must exist). Returns the files written."""
    reference = Path(reference)
    if not reference.is_dir():
        write_table(_without_empty_pairs(table), reference)
        return [reference]
    written = []
    for paper, rows in table.groupby("paper", sort=False):
        folder = reference / str(paper)
        if not folder.is_dir():
            raise ClaimsReferenceError(f"{reference}: no folder {paper!r} for the claims of paper {paper!r}")
        write_table(_without_empty_pairs(rows.reset_index(drop=True)), folder / PAPER_REFERENCE)
        written.append(folder / PAPER_REFERENCE)
    return written


def _without_empty_pairs(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows without the column of second verdicts when none of them has one."""
    if OTHER_MACHINE in rows.columns and not rows[OTHER_MACHINE].astype(bool).any():
        return rows.drop(columns=OTHER_MACHINE)
    return rows


def verdict_changes(
    reference: dict[str, str], run: dict[str, str], other_machine: dict[str, str] | None = None
) -> list[VerdictChange]:
    """Every claim whose run verdict is neither its reference verdict nor its ``other_machine`` one, or that only
    the reference or the run has."""
    other_machine = other_machine or {}
    changes = [
        VerdictChange(cid, v, run.get(cid), other_machine.get(cid, ""))
        for cid, v in reference.items()
        if run.get(cid) not in {v, other_machine.get(cid, v)}
    ]
    changes += [VerdictChange(cid, None, v) for cid, v in run.items() if cid not in reference]
    return changes


def updated_reference(table: pd.DataFrame, other_machine: dict[str, str], reference: dict[str, str]) -> pd.DataFrame:
    """A run's reference rows with the second accepted verdicts kept: a claim that had one keeps the pair (the
    run's verdict first, the other of the two second); a claim whose run verdict left the pair loses it."""
    table = table.copy()
    pairs = []
    for cid, verdict in zip(table["claim_id"], table["verdict"]):
        pair = {reference.get(cid), other_machine.get(cid)} if cid in other_machine else set()
        pairs.append(next(iter(pair - {verdict})) if verdict in pair else "")
    table[OTHER_MACHINE] = pairs
    return table


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
    reference_path = Path(args.reference)
    has_reference = reference_path.is_file() or bool(reference_path.is_dir() and reference_files(reference_path))
    reference, other_machine = _verdicts(_reference_frame(reference_path)) if has_reference else ({}, {})
    if args.command == "update":
        table = updated_reference(table, other_machine, reference)
        written = write_reference(table, args.reference)
        print(f"{args.reference}: {len(table)} claims from {args.claims} in {len(written)} file(s)")
        return 0
    run = dict(zip(table["claim_id"], table["verdict"]))
    changes = verdict_changes(reference, run, other_machine)
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
    took = sorted(cid for cid, v in other_machine.items() if run.get(cid) == v)
    if took:
        print(f"  {len(took)} of them with the verdict of the other machine ({OTHER_MACHINE}): {', '.join(took)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
