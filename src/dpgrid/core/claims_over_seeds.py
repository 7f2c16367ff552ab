"""Claim verdicts over independent seeds: where a claim's verdict falls over replicate runs, not one draw.

A claims table (:mod:`dpgrid.core.claims`) comes from one draw of the stand-in data and of every mechanism's
noise. Given the ``claims.csv`` of several runs that differ only in their seed, each claim gets:

* the share of the replicates where it is compared (verdict ``reproduced`` or ``differs``) that reproduce it, and
  the one-sided 90 % Clopper-Pearson bounds of that share (:func:`cp_bounds`);
* a verdict by the rule :func:`seed_verdict`: ``reproduced`` when the lower bound is at least 0.8, ``differs`` when
  the upper bound is at most 0.2, ``seed-dependent`` otherwise; a claim never compared keeps its category
  (``not comparable``, ``calibration target``, ``calibration missed``) when every replicate gives it, and is
  ``seed-dependent`` when they disagree. All-reproduced replicates reach the 0.8 bound from 11 on
  (0.1 ** (1 / 11) = 0.81), so fewer replicates can only say ``seed-dependent``;
* the median of its reproduced values and their range over the replicates (numbers only).

Usage (the runs' claims tables, e.g. of ``--config seed=... run='{name: s1}'``)::

    python -m dpgrid.core.claims_over_seeds claims_over_seeds.csv claims_over_seeds.md results/s*/claims.csv
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy import stats

from dpgrid.core.claims import SEED_DEPENDENT, VERDICTS, Claim, read_claims
from dpgrid.core.claims_table import md_escape
from dpgrid.core.io import write_table, write_text
from dpgrid.core.spread import median_interval

#: one-sided confidence of the Clopper-Pearson bounds, and the shares the rule compares them with
CONFIDENCE = 0.90
REPRODUCED_SHARE = 0.8
DIFFERS_SHARE = 0.2
COMPARED = ("reproduced", "differs")


class ClaimsOverSeedsError(ValueError):
    """Replicate tables that cannot be compared (none given, or a claim's paper or target differs between them)."""


def cp_bounds(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """One-sided Clopper-Pearson bounds (lower, upper) of a share from ``k`` successes in ``n`` trials, each at
    ``confidence``: Pr(X >= k | lower) = Pr(X <= k | upper) = 1 - confidence (NaN, NaN for n = 0). They are the
    ends of scipy's exact two-sided interval at level 2 confidence - 1."""
    if n == 0:
        return math.nan, math.nan
    interval = stats.binomtest(k, n).proportion_ci(confidence_level=2.0 * confidence - 1.0, method="exact")
    return float(interval.low), float(interval.high)


def seed_verdict(verdicts: Sequence[str]) -> str:
    """The verdict of a claim over replicates from its verdict in each (the rule of the module docstring)."""
    compared = [v for v in verdicts if v in COMPARED]
    if not compared:
        kinds = set(verdicts)
        return kinds.pop() if len(kinds) == 1 else SEED_DEPENDENT
    lower, upper = cp_bounds(sum(v == "reproduced" for v in compared), len(compared))
    if lower >= REPRODUCED_SHARE:
        return "reproduced"
    if upper <= DIFFERS_SHARE:
        return "differs"
    return SEED_DEPENDENT


@dataclass(frozen=True)
class ClaimOverSeeds:
    claim_id: str
    paper: str
    target: str
    description: str
    paper_value: str
    replicates: int
    compared: int
    reproduced: int
    share_lower: float
    share_upper: float
    verdict: str
    median: float
    low: float
    high: float
    verdicts: str


def _number(text: str) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return math.nan
    return value if math.isfinite(value) else math.nan


def claims_over_seeds(replicates: Sequence[Sequence[Claim]]) -> list[ClaimOverSeeds]:
    """One row per claim of the first replicate's table (then any claim only later ones have), in that order."""
    if not replicates:
        raise ClaimsOverSeedsError("no replicate claims tables given")
    rows: dict[str, list[Claim]] = {}
    for table in replicates:
        for claim in table:
            rows.setdefault(claim.claim_id, []).append(claim)
    out = []
    for cid, claims in rows.items():
        first = claims[0]
        other = sorted({(c.paper, c.target) for c in claims} - {(first.paper, first.target)})
        if other:
            raise ClaimsOverSeedsError(
                f"claim {cid}: paper/target differ between replicates: {first.paper, first.target} vs {other}"
            )
        verdicts = [c.verdict for c in claims]
        compared = [v for v in verdicts if v in COMPARED]
        k = sum(v == "reproduced" for v in compared)
        lower, upper = cp_bounds(k, len(compared))
        values = np.array([_number(c.reproduced_value) for c in claims])
        values = values[np.isfinite(values)]
        out.append(
            ClaimOverSeeds(
                claim_id=cid,
                paper=first.paper,
                target=first.target,
                description=first.description,
                paper_value=first.paper_value,
                replicates=len(claims),
                compared=len(compared),
                reproduced=k,
                share_lower=lower,
                share_upper=upper,
                verdict=seed_verdict(verdicts),
                median=float(np.median(values)) if values.size else math.nan,
                low=float(values.min()) if values.size else math.nan,
                high=float(values.max()) if values.size else math.nan,
                verdicts=", ".join(f"{v} {verdicts.count(v)}" for v in VERDICTS if v in verdicts),
            )
        )
    return out


def _paper_counts(rows: Sequence[ClaimOverSeeds]) -> list[str]:
    """Per paper (in the table's order), its claims per verdict over the replicates, as Markdown table lines."""
    kinds = ["reproduced", "differs", SEED_DEPENDENT, *(v for v in VERDICTS if v not in COMPARED)]
    kinds = [k for k in kinds if any(r.verdict == k for r in rows)]
    papers = list(dict.fromkeys(r.paper for r in rows))
    lines = ["| paper | claims | " + " | ".join(kinds) + " |", "|---|" + "---:|" * (len(kinds) + 1)]
    for paper in papers:
        mine = [r.verdict for r in rows if r.paper == paper]
        lines.append(f"| {md_escape(paper)} | {len(mine)} | " + " | ".join(str(mine.count(k)) for k in kinds) + " |")
    return lines


def markdown(rows: Sequence[ClaimOverSeeds]) -> str:
    n = max(r.replicates for r in rows) if rows else 0
    counts = {v: sum(r.verdict == v for r in rows) for v in ("reproduced", "differs", SEED_DEPENDENT)}
    lines = [
        "# Claims over seeds",
        "",
        f"{len(rows)} claims over {n} replicate runs: " + ", ".join(f"{k} {v}" for v, k in counts.items()) + " "
        f"(rule: one-sided {CONFIDENCE:.0%} Clopper-Pearson bounds of the share reproduced, reproduced if the lower "
        f"is >= {REPRODUCED_SHARE}, differs if the upper is <= {DIFFERS_SHARE}).",
        "",
        *_paper_counts(rows),
        "",
        "| id | paper | target | paper value | ours: median [min, max] | reproduced / compared | share bounds | verdict | verdicts per replicate |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ours = median_interval(r.median, r.low, r.high)
        bounds = f"[{r.share_lower:.2f}, {r.share_upper:.2f}]" if r.compared else "-"
        cells = (r.claim_id, r.paper, r.target, r.paper_value, ours, f"{r.reproduced} / {r.compared}", bounds,
                 f"**{r.verdict}**", r.verdicts)  # fmt: skip
        lines.append("| " + " | ".join(md_escape(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def write_claims_over_seeds(claims_files: Sequence[str], csv_out: str, md_out: str) -> str:
    """Write the table over the replicates' claims tables ``claims_files`` (CSV and Markdown); return its summary
    line."""
    rows = claims_over_seeds([read_claims(p) for p in claims_files])
    text = markdown(rows)
    write_table(pd.DataFrame([asdict(r) for r in rows]), csv_out)
    write_text(text, md_out)
    return text.split("\n")[2]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dpgrid.core.claims_over_seeds",
        description="Claim verdicts over replicate runs (claims.csv of runs that differ only in their seed).",
    )
    parser.add_argument("csv_out", help="the table to write (CSV)")
    parser.add_argument("md_out", help="the same as Markdown")
    parser.add_argument("claims", nargs="+", help="the replicate runs' results/.../claims.csv")
    args = parser.parse_args(argv)
    print(write_claims_over_seeds(args.claims, args.csv_out, args.md_out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
