"""The claims table: one row per claim or printed number of a paper.

Each paper's rules write ``results/<paper>/claims.csv`` with :func:`write_claims`; the report rule
collects them with :func:`dpgrid.core.claims_table.collect_claims` into ``results/claims.csv`` and
``results/claims.md``.

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
- ``calibration missed`` a calibration target our run misses by more than the printed precision (half a unit
                      of the printed number's last digit, :func:`printed_precision`): the stand-in was built to
                      match it and does not; ``note`` says by how much, and the rows resting on it say so.

Two rules hold for every paper (:meth:`ClaimSpec.claim`):

- ``reproduced`` needs something printed to compare with: a printed number (a numeric ``paper_value``) or the
  printed sentence the row checks (:attr:`ClaimSpec.quote`).  A row that holds with nothing printed to compare
  with is ``not comparable`` ("nothing printed to compare with").
- a qualitative row states the effect size the paper's sentence implies in its description or value (a "much
  better" needs a material margin, not an ordering); its measure decides with that margin.

A claim we do not reproduce is a result, not a failure: it is written with its reason.

Each paper states its claims as data: a tuple of :class:`ClaimSpec` records (id, target, description,
paper value, tolerance and the function that measures the reproduced value from the run's tables), and its
claims job is one loop, :func:`evaluate_claims`.  A spec's ``measure`` returns a :class:`Measured`: the
reproduced number (or whether a qualitative claim holds), how to show it, a note, and whether the
comparison can be made (``COMPARED``), cannot (``NOT_COMPARABLE``: a precondition fails or the data are
not the paper's; the note says why) or the printed number is an input of the stand-in (``CALIBRATION``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

import pandas as pd

from dpgrid.core.io import write_table

VERDICTS = ("reproduced", "differs", "not comparable", "calibration target", "calibration missed")
#: the verdict over replicates of a claim that the replicates do not decide (dpgrid.core.claims_over_seeds)
SEED_DEPENDENT = "seed-dependent"
#: the note of a row that would be reproduced with nothing printed to compare with
NOTHING_PRINTED = "nothing printed to compare with"
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


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def printed_precision(value: float) -> float:
    """Half a unit of the last digit of a printed number, as ``paper.py`` writes it (``repr``): 0.8 -> 0.05,
    2.13 -> 0.005, 39 -> 0.5.  A value kept with fewer digits than the paper printed (39.20 as 39.2) gives a
    looser precision, never a tighter one."""
    text = repr(float(value)) if not isinstance(value, int) else str(value)
    if "e" in text or "E" in text:
        mantissa, exp = text.lower().split("e")
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        return 0.5 * 10.0 ** (int(exp) - decimals)
    if "." not in text or text.endswith(".0"):
        return 0.5
    return 0.5 * 10.0 ** (-len(text.split(".")[1]))


def within_printed_precision(value: float, printed: float) -> bool:
    """``value`` rounds to the printed number ``printed``: within :func:`printed_precision` of it, the boundary
    included (0.75 against a printed 0.8 is within +-0.05 although 0.8 - 0.75 is 0.05000000000000004 in binary)."""
    return math.isfinite(value) and abs(value - printed) <= printed_precision(printed) * (1.0 + 1e-9)


def fmt(value: object, digits: int = 4) -> str:
    """Format a number for the claims table (``digits`` significant digits)."""
    if isinstance(value, (bool,)):
        return "yes" if value else "no"
    if _is_number(value):
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
    """A printed number the stand-in data were built to match: verdict ``calibration target`` when the run is
    within the printed precision of it (:func:`printed_precision`), ``calibration missed`` when it is not."""
    if not note:
        raise ClaimsError(f"claim {claim_id!r}: a calibration target needs a note saying what was calibrated on it")
    precision = printed_precision(paper_value)
    missed = not within_printed_precision(reproduced, paper_value)
    if missed:
        note = (
            f"calibration missed: off by {fmt(reproduced - paper_value, 3)}, beyond the printed precision "
            f"+-{precision:g}; {note}"
        )
    return Claim(
        claim_id,
        paper,
        target,
        description,
        fmt(paper_value, digits),
        fmt(reproduced, digits),
        "input",
        "calibration missed" if missed else "calibration target",
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


#: the outcomes a :class:`Measured` can state
COMPARED, NOT_COMPARABLE, CALIBRATION = "compared", "not comparable", "calibration target"


@dataclass(frozen=True)
class Measured:
    """What a run gives for one claim (the return value of a :class:`ClaimSpec`'s ``measure``).

    ``value`` is the reproduced number of a numeric claim, or whether a qualitative claim holds (a bool);
    ``shown`` is the reproduced value as printed (default: the number, or "holds"/"does not hold").
    ``status`` is ``COMPARED`` (the verdict follows from the tolerance), ``NOT_COMPARABLE`` or
    ``CALIBRATION`` (``note`` must then say why / what was calibrated on it).
    ``abs_tol``, for a numeric claim whose absolute tolerance the run determines (for example three standard
    errors of a sampled mean), replaces the spec's ``abs_tol``; the spec's ``rel_tol`` still applies.
    ``reference`` is what the claim is compared with when the run computes it (the optimum a closed form
    should attain, the delta a calibration formula targets, the true profiles' share): it replaces the
    spec's ``paper_value`` (a number for a numeric spec, a text for a qualitative one).  ``tolerance`` states
    the tolerance when it is computed from the run (a multiple of a reference distance): it replaces the
    spec's text (for a qualitative claim whose measure decides with that tolerance).
    """

    value: float | bool
    shown: str | None = None
    note: str = ""
    status: str = COMPARED
    abs_tol: float | None = None
    reference: float | str | None = None
    tolerance: str | None = None

    def __post_init__(self) -> None:
        if self.status not in (COMPARED, NOT_COMPARABLE, CALIBRATION):
            raise ClaimsError(f"measured status {self.status!r} not in {(COMPARED, NOT_COMPARABLE, CALIBRATION)}")


@dataclass(frozen=True)
class ClaimSpec:
    """One claim or printed number of a paper, as data.

    A numeric claim has a number as ``paper_value`` and a tolerance (``rel_tol`` and/or ``abs_tol``: the
    verdict is ``reproduced`` iff ``|reproduced - paper| <= max(abs_tol, rel_tol |paper|)``; an ``abs_tol`` the
    run determines comes with the measured value, :attr:`Measured.abs_tol`); a qualitative
    claim has a text as ``paper_value`` (default "holds") and no tolerance, and is reproduced iff it holds.
    ``measure(ctx)`` computes the :class:`Measured` value from the run's tables (``ctx`` is whatever the
    paper's claims job loads).  ``description`` and a text ``paper_value`` may name fields of the job's
    text arguments (``{name}``, filled by :func:`evaluate_claims`).  ``paper_value=None`` says the value
    compared with is computed by the run (``Measured.reference``); the spec is numeric iff it has a tolerance.
    ``quote`` is the paper's printed sentence the row checks (with its section or figure), the thing a
    qualitative row or a run-computed reference is compared with: without it (and without a printed number as
    ``paper_value``) the row cannot be ``reproduced`` (:attr:`printed`).
    """

    claim_id: str
    target: str
    description: str
    measure: Callable[[Any], Measured]
    paper_value: float | str = "holds"
    rel_tol: float | None = None
    abs_tol: float | None = None
    digits: int = 4
    quote: str = ""

    @property
    def printed(self) -> bool:
        """Whether the paper prints what this row is compared with: a number (``paper_value``) or a sentence
        (``quote``)."""
        return _is_number(self.paper_value) or bool(self.quote.strip())

    def __post_init__(self) -> None:
        numeric = _is_number(self.paper_value)
        if numeric and self.rel_tol is None and self.abs_tol is None:
            raise ClaimsError(f"claim {self.claim_id!r}: a numeric paper value needs rel_tol and/or abs_tol")
        if not numeric and self.paper_value is not None and (self.rel_tol is not None or self.abs_tol is not None):
            raise ClaimsError(f"claim {self.claim_id!r}: a qualitative claim (text paper value) takes no tolerance")

    @property
    def numeric(self) -> bool:
        if self.paper_value is None:
            return self.rel_tol is not None or self.abs_tol is not None
        return _is_number(self.paper_value)

    def claim(self, paper: str, m: Measured, text_args: Mapping[str, object] | None = None) -> Claim:
        """The claims-table row of this spec for the measured value ``m``."""
        desc = self.description.format_map(text_args) if text_args is not None else self.description
        pv = self.paper_value if m.reference is None else m.reference
        if pv is None:
            raise ClaimsError(f"claim {self.claim_id!r}: the value compared with is computed by the run, no reference")
        if isinstance(pv, str) and text_args is not None:
            pv = pv.format_map(text_args)
        if m.abs_tol is not None and not self.numeric:
            raise ClaimsError(f"claim {self.claim_id!r}: a qualitative claim takes no tolerance (measured abs_tol)")
        if self.numeric == isinstance(pv, str):
            kind = (
                "numeric claim's reference must be a number" if self.numeric else "qualitative claim's must be a text"
            )
            raise ClaimsError(f"claim {self.claim_id!r}: a {kind}, got {pv!r}")
        row = self._row(paper, m, desc, pv)
        if row.verdict == "reproduced" and not self.printed:
            # the rule of every paper: 'reproduced' compares with something the paper prints
            note = f"{NOTHING_PRINTED} (paper value: {row.paper_value})" + (f"; {row.note}" if row.note else "")
            row = Claim(**{**asdict(row), "verdict": "not comparable", "note": note})
        return row if m.tolerance is None else Claim(**{**asdict(row), "tolerance": m.tolerance})

    def _row(self, paper: str, m: Measured, desc: str, pv: float | str) -> Claim:
        if m.status == CALIBRATION:
            shown = m.shown if m.shown is not None else fmt(m.value, self.digits)
            if self.numeric:
                c = calibration_target_claim(
                    self.claim_id, paper, self.target, desc, pv, m.value, note=m.note, digits=self.digits
                )
                return c if m.shown is None else Claim(**{**asdict(c), "reproduced_value": shown})
            if not m.note:
                raise ClaimsError(f"claim {self.claim_id!r}: a calibration target needs a note")
            if not bool(m.value):  # a stated fact the data were built to have, which this run's data do not have
                note = f"calibration missed: the stated fact does not hold in this run; {m.note}"
                return Claim(self.claim_id, paper, self.target, desc, pv, shown, "input", "calibration missed", note)
            return Claim(self.claim_id, paper, self.target, desc, pv, shown, "input", CALIBRATION, m.note)
        comparable = m.status == COMPARED
        if self.numeric:
            c = numeric_claim(
                self.claim_id,
                paper,
                self.target,
                desc,
                pv,
                float(m.value),
                rel_tol=self.rel_tol,
                abs_tol=self.abs_tol if m.abs_tol is None else m.abs_tol,
                note=m.note,
                comparable=comparable,
                digits=self.digits,
            )
            return c if m.shown is None else Claim(**{**asdict(c), "reproduced_value": m.shown})
        return boolean_claim(
            self.claim_id,
            paper,
            self.target,
            desc,
            bool(m.value),
            reproduced_value=m.shown,
            paper_value=pv,
            note=m.note,
            comparable=comparable,
        )


def evaluate_claims(
    paper: str, specs: Sequence[ClaimSpec], ctx: object, text_args: Mapping[str, object] | None = None
) -> list[Claim]:
    """The claims-table rows of ``specs`` (in order), each measured on ``ctx``: a paper's claims job is this loop."""
    rows = []
    for spec in specs:
        try:
            m = spec.measure(ctx)
        except ClaimsError:
            raise
        except Exception as exc:  # name the claim whose measurement failed
            raise ClaimsError(f"claim {spec.claim_id!r}: measuring it failed: {exc}") from exc
        if not isinstance(m, Measured):
            raise ClaimsError(f"claim {spec.claim_id!r}: measure returned {type(m).__name__}, not Measured")
        rows.append(spec.claim(paper, m, text_args))
    return rows


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
