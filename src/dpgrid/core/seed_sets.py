"""Two disjoint seed sets: do the claims tables over seeds of two root seeds contradict each other?

:mod:`dpgrid.core.claims_over_seeds` gives a claim a verdict over the replicates of one root seed. A verdict that
stands for the claim and not for the draw is the same for another root seed whose replicates share no seed with
the first's: no claim may be ``reproduced`` over one set and ``differs`` over the other (``seed-dependent`` against
either is allowed: the rule's error rates make such pairs expected). The chance of a contradiction, over a claim's
true share, is below 1e-6 for 20 independent replicates and at most 2**-10 for 5 data replicates whose noise
replicates all agree (tests/core/test_claims_over_seeds.py).

The replicates of root seed ``s`` use the data seeds :func:`dpgrid.core.replicates.data_seed` and the noise
seeds :func:`dpgrid.core.replicates.noise_seed`; :func:`replicate_seeds` lists them all, and two sets are
disjoint when those lists share no value.

Usage (the two runs' ``results/claims_over_seeds.csv``, their root seeds and their replicate counts)::

    python -m dpgrid.core.seed_sets A/claims_over_seeds.csv B/claims_over_seeds.csv \\
        --seeds 20241122 20241123 --replicates 5 4 --markdown seed_sets.md
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from dpgrid.core.claims_table import md_escape
from dpgrid.core.io import write_text
from dpgrid.core.replicates import data_seed, noise_seed, replicate_grid

#: verdict pairs over two disjoint seed sets that contradict each other
CONTRADICTORY = frozenset({"reproduced", "differs"})


class SeedSetsError(ValueError):
    """Tables that cannot be compared: a column missing or a claim repeated."""


@dataclass(frozen=True)
class VerdictPair:
    claim_id: str
    paper: str
    first: str
    second: str

    @property
    def contradictory(self) -> bool:
        return {self.first, self.second} == CONTRADICTORY


def replicate_seeds(seed: int, n_data: int, n_noise: int) -> set[int]:
    """Every data and noise seed the replicates of root seed ``seed`` use (``n_data`` x ``n_noise`` replicates)."""
    seeds = set()
    for d, n in replicate_grid(n_data, n_noise):
        seeds.update((data_seed(seed, d), noise_seed(seed, d, n)))
    return seeds


def shared_seeds(first: int, second: int, n_data: int, n_noise: int) -> set[int]:
    """The seeds the replicates of root seeds ``first`` and ``second`` have in common (empty: disjoint sets)."""
    return replicate_seeds(first, n_data, n_noise) & replicate_seeds(second, n_data, n_noise)


def _verdicts(path: str) -> pd.DataFrame:
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = sorted({"claim_id", "paper", "verdict"} - set(table.columns))
    if missing:
        raise SeedSetsError(f"{path}: columns {missing} missing (a claims_over_seeds.csv has them)")
    repeated = sorted(table.loc[table["claim_id"].duplicated(), "claim_id"].unique())
    if repeated:
        raise SeedSetsError(f"{path}: claim_id {repeated[0]!r} appears more than once")
    return table.set_index("claim_id")


def verdict_pairs(first: str, second: str) -> list[VerdictPair]:
    """Each claim's verdict over the two tables ``first`` and ``second`` (claims_over_seeds.csv), in the first's
    order, then the claims only the second has; a claim missing from one table gets the verdict ``missing``."""
    a, b = _verdicts(first), _verdicts(second)
    out = []
    for cid in list(a.index) + [c for c in b.index if c not in a.index]:
        paper = a.at[cid, "paper"] if cid in a.index else b.at[cid, "paper"]
        out.append(
            VerdictPair(
                claim_id=cid,
                paper=paper,
                first=a.at[cid, "verdict"] if cid in a.index else "missing",
                second=b.at[cid, "verdict"] if cid in b.index else "missing",
            )
        )
    return out


def markdown(pairs: Sequence[VerdictPair], seeds: tuple[int, int]) -> str:
    """The count of each verdict pair, then every claim whose verdict differs between the two sets."""
    counts = Counter((p.first, p.second) for p in pairs)
    bad = [p for p in pairs if p.contradictory]
    lines = [
        f"# Claims over two disjoint seed sets (root seeds {seeds[0]} and {seeds[1]})",
        "",
        f"{len(pairs)} claims; {len(bad)} reproduced over one set and differs over the other.",
        "",
        f"| seed {seeds[0]} | seed {seeds[1]} | claims |",
        "|---|---|---:|",
        *(f"| {a} | {b} | {n} |" for (a, b), n in sorted(counts.items())),
        "",
        "Claims whose verdict differs between the sets:",
        "",
        f"| id | paper | seed {seeds[0]} | seed {seeds[1]} |",
        "|---|---|---|---|",
        *(
            f"| {md_escape(p.claim_id)} | {md_escape(p.paper)} | {p.first} | {p.second}"
            + (" (contradiction)" if p.contradictory else "")
            + " |"
            for p in pairs
            if p.first != p.second
        ),
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dpgrid.core.seed_sets",
        description="Compare the claims tables over seeds of two disjoint seed sets; exit 1 on a claim reproduced "
        "over one and differs over the other, 2 on seed sets that share a seed or a table that cannot be read.",
    )
    parser.add_argument("first", help="claims_over_seeds.csv of the first root seed")
    parser.add_argument("second", help="claims_over_seeds.csv of the second root seed")
    parser.add_argument("--seeds", nargs=2, type=int, required=True, metavar=("FIRST", "SECOND"))
    parser.add_argument("--replicates", nargs=2, type=int, required=True, metavar=("DATA", "NOISE"))
    parser.add_argument("--markdown", help="also write the comparison here")
    args = parser.parse_args(argv)
    shared = shared_seeds(*args.seeds, *args.replicates)
    if shared:
        print(f"seed_sets: root seeds {args.seeds[0]} and {args.seeds[1]} share the replicate seeds "
              f"{sorted(shared)[:3]}: the sets are not disjoint", file=sys.stderr)  # fmt: skip
        return 2
    try:
        pairs = verdict_pairs(args.first, args.second)
    except (SeedSetsError, OSError) as exc:
        print(f"seed_sets: {exc}", file=sys.stderr)
        return 2
    text = markdown(pairs, tuple(args.seeds))
    if args.markdown:
        write_text(text, args.markdown)
    print(text, end="")
    bad = [p.claim_id for p in pairs if p.contradictory]
    if bad:
        print(f"seed_sets: {len(bad)} claims reproduced over one seed set and differs over the other: "
              + ", ".join(bad), file=sys.stderr)  # fmt: skip
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
