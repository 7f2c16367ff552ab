"""The claims table: one row per claim or printed number of a paper.

Each paper's rules write ``results/<paper>/claims.csv`` with :func:`write_claims`; the report rule
collects them with :func:`collect_claims` into ``results/claims.csv`` and ``results/claims.md``.

A row states the paper's value, the value we reproduced, the tolerance used to compare them and
a verdict:

- ``reproduced``      the reproduced value is within tolerance of the paper's (or the qualitative
                      claim holds in our run);
- ``differs``         it is not; ``note`` says by how much and, where known, why;
- ``not comparable``  the comparison cannot be made as the paper states it (for example the paper's
                      data are proprietary and the number depends on them); ``note`` says why;
- ``calibration target`` a printed number used to build the stand-in data (a stated data fact, or the
                      at most one printed result a free data property was calibrated on): shown, never
                      counted as reproduced; ``note`` says what was calibrated on it.

A claim we do not reproduce is a result, not a failure: it is written with its reason.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, fields

import pandas as pd

from dpgrid.io import write_table, write_text

VERDICTS = ("reproduced", "differs", "not comparable", "calibration target")
COLUMNS = [
    "claim_id",
    "paper",
    "target",
    "description",
    "paper_value",
    "reproduced_value",
    "tolerance",
    "verdict",
    "note",
]


class ClaimsError(ValueError):
    """A claims table is malformed."""


@dataclass(frozen=True)
class Claim:
    claim_id: str
    paper: str
    target: str
    description: str
    paper_value: str
    reproduced_value: str
    tolerance: str
    verdict: str
    note: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ClaimsError(f"claim {self.claim_id!r}: verdict {self.verdict!r} not in {VERDICTS}")
        if not self.claim_id or not self.paper:
            raise ClaimsError(f"claim needs a claim_id and a paper, got {self.claim_id!r}, {self.paper!r}")
        if self.verdict != "reproduced" and not self.note:
            raise ClaimsError(f"claim {self.claim_id!r}: verdict {self.verdict!r} needs a note saying why")


def fmt(value: object, digits: int = 4) -> str:
    """Format a number for the claims table (``digits`` significant digits)."""
    if isinstance(value, (bool,)):
        return "yes" if value else "no"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, float) and not math.isfinite(value):
            return str(value)
        return f"{value:.{digits}g}"
    return str(value)


def numeric_claim(
    claim_id: str,
    paper: str,
    target: str,
    description: str,
    paper_value: float,
    reproduced: float,
    *,
    rel_tol: float | None = None,
    abs_tol: float | None = None,
    note: str = "",
    comparable: bool = True,
    digits: int = 4,
) -> Claim:
    """A claim about a printed number, compared with a relative and/or absolute tolerance.

    The verdict is ``reproduced`` when ``|reproduced - paper_value| <= max(abs_tol,
    rel_tol * |paper_value|)``. With ``comparable=False`` the row is written as
    ``not comparable`` (``note`` must say why) but both numbers are still shown.
    """
    if rel_tol is None and abs_tol is None:
        raise ClaimsError(f"claim {claim_id!r}: give rel_tol and/or abs_tol")
    tol = max(abs_tol or 0.0, (rel_tol or 0.0) * abs(paper_value))
    parts = []
    if rel_tol is not None:
        parts.append(f"rel {rel_tol:g}")
    if abs_tol is not None:
        parts.append(f"abs {abs_tol:g}")
    diff = reproduced - paper_value
    within = math.isfinite(reproduced) and abs(diff) <= tol
    if not comparable:
        verdict = "not comparable"
    else:
        verdict = "reproduced" if within else "differs"
    if verdict == "differs" and not note:
        note = (
            f"off by {fmt(diff, 3)} ({fmt(100 * diff / paper_value, 3)} %)" if paper_value else f"off by {fmt(diff, 3)}"
        )
    return Claim(
        claim_id,
        paper,
        target,
        description,
        fmt(paper_value, digits),
        fmt(reproduced, digits),
        " or ".join(parts),
        verdict,
        note,
    )


def calibration_target_claim(
    claim_id: str,
    paper: str,
    target: str,
    description: str,
    paper_value: float,
    reproduced: float,
    *,
    note: str,
    digits: int = 4,
) -> Claim:
    """A printed number the stand-in data were built to match (verdict ``calibration target``)."""
    if not note:
        raise ClaimsError(f"claim {claim_id!r}: a calibration target needs a note saying what was calibrated on it")
    return Claim(
        claim_id,
        paper,
        target,
        description,
        fmt(paper_value, digits),
        fmt(reproduced, digits),
        "input",
        "calibration target",
        note,
    )


def boolean_claim(
    claim_id: str,
    paper: str,
    target: str,
    description: str,
    holds: bool,
    *,
    reproduced_value: str | None = None,
    paper_value: str = "holds",
    note: str = "",
    comparable: bool = True,
) -> Claim:
    """A qualitative claim ("proposed delta < white delta at every eps"): reproduced iff it holds."""
    if not comparable:
        verdict = "not comparable"
    else:
        verdict = "reproduced" if holds else "differs"
    if verdict == "differs" and not note:
        note = "the claimed property does not hold in our run"
    return Claim(
        claim_id,
        paper,
        target,
        description,
        paper_value,
        reproduced_value if reproduced_value is not None else ("holds" if holds else "does not hold"),
        "exact",
        verdict,
        note,
    )


def claims_frame(claims: Sequence[Claim]) -> pd.DataFrame:
    ids = [c.claim_id for c in claims]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ClaimsError(f"duplicate claim ids: {dup}")
    return pd.DataFrame([asdict(c) for c in claims], columns=COLUMNS)


def write_claims(claims: Sequence[Claim], path: str | os.PathLike) -> None:
    """Write one paper's claims CSV atomically (rows in the given order)."""
    write_table(claims_frame(claims), path)


def read_claims(path: str | os.PathLike) -> list[Claim]:
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ClaimsError(f"{path}: missing columns {missing}")
    out = []
    for i, row in df.iterrows():
        try:
            out.append(Claim(**{f.name: row[f.name] for f in fields(Claim)}))
        except ClaimsError as exc:
            raise ClaimsError(f"{path}, row {i + 2}: {exc}") from None
    return out


def summarise(claims: Sequence[Claim]) -> str:
    n = len(claims)
    counts = {v: sum(c.verdict == v for c in claims) for v in VERDICTS}
    cal = f", {counts['calibration target']} calibration targets" if counts["calibration target"] else ""
    return (
        f"{counts['reproduced']} of {n} claims reproduced, {counts['differs']} differ, "
        f"{counts['not comparable']} not comparable{cal}."
    )


def _md_escape(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def claims_markdown(claims: Sequence[Claim]) -> str:
    lines = ["# Claims table", "", summarise(claims), ""]
    papers = list(dict.fromkeys(c.paper for c in claims))
    for paper in papers:
        rows = [c for c in claims if c.paper == paper]
        lines += [
            f"## {paper}",
            "",
            summarise(rows),
            "",
            "| id | target | claim | paper | reproduced | tolerance | verdict | note |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for c in rows:
            lines.append(
                "| "
                + " | ".join(
                    _md_escape(x)
                    for x in (
                        c.claim_id,
                        c.target,
                        c.description,
                        c.paper_value,
                        c.reproduced_value,
                        c.tolerance,
                        f"**{c.verdict}**",
                        c.note,
                    )
                )
                + " |"
            )
        lines.append("")
    return "\n".join(lines)


def collect_claims(inputs: Iterable[str | os.PathLike], csv_out: str | os.PathLike, md_out: str | os.PathLike) -> str:
    """Merge per-paper claims CSVs into one CSV and one Markdown table; return the summary line."""
    claims: list[Claim] = []
    for p in inputs:
        claims.extend(read_claims(p))
    write_claims(claims, csv_out)
    write_text(claims_markdown(claims), md_out)
    return summarise(claims)
