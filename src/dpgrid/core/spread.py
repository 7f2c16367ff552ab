"""A result table over replicates: per row and value column, the median and the range of the replicates' values.

A paper that prints one noisy draw of a table or of a figure's curves gives no idea of its spread. Over the
replicates of a run (:mod:`dpgrid.core.replicates`, docs/seeds.md) the same table exists once per replicate;
:func:`spread` lines them up by their key columns and gives, per row and value column, the number of replicates
with a finite value, their median, and their range (lowest, highest): the band the figures over seeds draw and
the ``median [low, high]`` the tables over seeds print. The range is the central interval that n replicates can
give without a model; it covers a further replicate with probability (n - 1) / (n + 1).

Usage (replicate tables in any order; the keys name the rows)::

    python -m dpgrid.core.spread OUT.csv OUT.md --keys series --values mean_kw std_kw -- results/**/table2.csv
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd

from dpgrid.core.claims_table import md_escape
from dpgrid.core.io import read_table, write_table, write_text

#: the columns :func:`spread` adds after the key columns
SPREAD_COLUMNS = ("quantity", "replicates", "median", "low", "high")


class SpreadError(ValueError):
    """Replicate tables that cannot be lined up: none given, a key or value column missing, a key repeated, or
    rows that differ between replicates."""


def spread(tables: Sequence[pd.DataFrame], keys: Sequence[str], values: Sequence[str], names: Sequence[str] = ()):
    """Per row (the key columns' values) and value column: the replicates with a finite value, their median and
    range. Every table must have the same rows (same key values, each once); ``names`` name the tables in errors.
    Rows keep the first table's order; one output row per (row, value column), value columns in the order given.
    """
    if not tables:
        raise SpreadError("no replicate table given")
    keys, values = list(keys), list(values)
    names = list(names) or [f"replicate {i}" for i in range(len(tables))]
    first_rows = None
    stacked = []
    for name, table in zip(names, tables):
        missing = [c for c in keys + values if c not in table.columns]
        if missing:
            raise SpreadError(f"{name}: no column(s) {missing}; it has {list(table.columns)}")
        rows = table[keys].astype(str).apply(tuple, axis=1).tolist()
        repeated = sorted(r for r, count in Counter(rows).items() if count > 1)
        if repeated:
            raise SpreadError(f"{name}: key(s) {keys} repeat for {repeated[:3]}")
        if first_rows is None:
            first_rows = rows
        elif set(rows) != set(first_rows):
            extra, lacking = sorted(set(rows) - set(first_rows)), sorted(set(first_rows) - set(rows))
            raise SpreadError(
                f"{name}: rows differ from {names[0]}'s: extra {extra[:3]}, missing {lacking[:3]} (keys {keys})"
            )
        numbers = table[values].apply(pd.to_numeric, errors="coerce").to_numpy(float)
        stacked.append(dict(zip(rows, numbers)))
    out = []
    for i, row in enumerate(first_rows):
        draws = np.array([s[row] for s in stacked])  # (replicates, values)
        for j, quantity in enumerate(values):
            finite = draws[:, j][np.isfinite(draws[:, j])]
            stats = (
                (float(np.median(finite)), float(finite.min()), float(finite.max())) if finite.size else (math.nan,) * 3
            )
            out.append(
                {**dict(zip(keys, tables[0][keys].iloc[i])), "quantity": quantity, "replicates": int(finite.size)}
                | dict(zip(("median", "low", "high"), stats))
            )
    return pd.DataFrame(out, columns=[*keys, *SPREAD_COLUMNS])


def median_interval(median: float, low: float, high: float) -> str:
    """``median [low, high]`` with 4 significant digits; ``-`` when no replicate has a value."""
    if not math.isfinite(median):
        return "-"
    return f"{median:.4g} [{low:.4g}, {high:.4g}]"


def markdown(table: pd.DataFrame, keys: Sequence[str], title: str) -> str:
    """The spread as a Markdown table: the key columns, then one column per quantity with ``median [low, high]``."""
    quantities = list(dict.fromkeys(table["quantity"]))
    counts = sorted(set(table["replicates"]))
    lines = [
        f"# {title}",
        "",
        f"Median [lowest, highest] over {', '.join(map(str, counts))} replicate(s) with a value "
        "(docs/seeds.md; dpgrid.core.spread).",
        "",
        "| " + " | ".join([*keys, *quantities]) + " |",
        "|" + "---|" * (len(keys) + len(quantities)),
    ]
    for row, group in table.groupby(list(keys), sort=False):
        row = row if isinstance(row, tuple) else (row,)
        cells = {r.quantity: median_interval(r.median, r.low, r.high) for r in group.itertuples()}
        lines.append("| " + " | ".join([*(md_escape(str(v)) for v in row), *(cells[q] for q in quantities)]) + " |")
    return "\n".join(lines) + "\n"


def write_spread(
    files: Sequence[str], keys: Sequence[str], values: Sequence[str], csv_out: str, md_out: str, title: str
) -> str:
    """Read the replicate tables ``files``, write their spread as CSV and Markdown; a one-line summary."""
    files = list(dict.fromkeys(map(str, files)))
    table = spread([read_table(f) for f in files], keys, values, names=files)
    write_table(table, csv_out)
    write_text(markdown(table, keys, title), md_out)
    return f"{len(files)} replicate tables, {len(table)} rows x quantities -> {csv_out}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv_out")
    parser.add_argument("md_out")
    parser.add_argument("--keys", nargs="+", required=True)
    parser.add_argument("--values", nargs="+", required=True)
    parser.add_argument("--title", default="Result table over replicates")
    parser.add_argument("tables", nargs="+")
    args = parser.parse_args(argv)
    try:
        print(write_spread(args.tables, args.keys, args.values, args.csv_out, args.md_out, args.title))
    except (SpreadError, OSError, ValueError) as exc:
        print(f"spread: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
