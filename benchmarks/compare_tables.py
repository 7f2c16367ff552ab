"""Compare the result tables of two runs: which files moved, by how much, and whether claim verdicts changed.

For a declared last-bits change (issue 27): every CSV under ``--under`` (default ``results``) of run A and
run B is read; byte-identical files are counted, the others compared column by column: numeric columns by
the largest absolute and relative difference (relative to max(|a|, |b|), zero where both are 0), text columns
by the number of differing cells. A file passes when every numeric difference is within
``|a - b| <= atol + rtol * max(|a|, |b|)`` and the text columns are equal. Files present in one run only are
listed. ``results/**/claims.csv`` are compared row by row on the verdict column.

    python benchmarks/compare_tables.py RUN_A RUN_B [--under results/dpkmeans] [--rtol 1e-3] [--atol 1e-9]
        [--md OUT.md]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

VERDICT_COLUMNS = ("verdict", "status")


def compare_frames(a: pd.DataFrame, b: pd.DataFrame, rtol: float, atol: float) -> dict:
    """Largest differences of two tables of the same shape and columns (see module doc)."""
    if list(a.columns) != list(b.columns) or a.shape != b.shape:
        return {"ok": False, "why": f"shape/columns differ: {a.shape} {list(a.columns)[:6]} vs {b.shape}"}
    worst_abs, worst_rel, worst_col, text_cells, bad = 0.0, 0.0, "", 0, 0
    for c in a.columns:
        x, y = a[c], b[c]
        if pd.api.types.is_numeric_dtype(x) and pd.api.types.is_numeric_dtype(y):
            x, y = x.to_numpy(float), y.to_numpy(float)
            same = (x == y) | (np.isnan(x) & np.isnan(y))  # equal values, incl. equal infinities and NaN
            with np.errstate(invalid="ignore"):
                d = np.where(same, 0.0, np.abs(x - y))
            d = np.where(np.isnan(d), np.inf, d)  # NaN on one side only
            scale = np.maximum(np.abs(x), np.abs(y))
            with np.errstate(invalid="ignore", divide="ignore"):
                rel = np.where(d == 0, 0.0, d / np.where(scale > 0, scale, 1.0))
            bad += int(np.sum(d > atol + rtol * np.nan_to_num(scale)))
            if d.max(initial=0.0) > worst_abs:
                worst_abs, worst_col = float(d.max()), c
            worst_rel = max(worst_rel, float(rel.max(initial=0.0)))
        else:
            n = int((x.astype(str) != y.astype(str)).sum())
            text_cells += n
            bad += n
    return {
        "ok": bad == 0,
        "max_abs": worst_abs,
        "max_rel": worst_rel,
        "column": worst_col,
        "text_cells": text_cells,
        "cells_out": bad,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_a", type=Path)
    ap.add_argument("run_b", type=Path)
    ap.add_argument("--under", default="results")
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-9)
    ap.add_argument("--md", type=Path)
    args = ap.parse_args(argv)
    fa = {p.relative_to(args.run_a) for p in (args.run_a / args.under).rglob("*.csv")}
    fb = {p.relative_to(args.run_b) for p in (args.run_b / args.under).rglob("*.csv")}
    same, rows = 0, []
    for rel in sorted(fa & fb):
        pa, pb = args.run_a / rel, args.run_b / rel
        if pa.read_bytes() == pb.read_bytes():
            same += 1
            continue
        r = compare_frames(pd.read_csv(pa), pd.read_csv(pb), args.rtol, args.atol)
        rows.append((str(rel), r))
    lines = [
        f"Tables under `{args.under}`: {len(fa & fb)} in both runs, {same} byte-identical, {len(rows)} moved; "
        f"tolerance |a - b| <= {args.atol:g} + {args.rtol:g} max(|a|, |b|).",
        "",
        "| table | within tolerance | max abs diff | max rel diff | column of max abs | cells outside | text cells |",
        "|---|---|---:|---:|---|---:|---:|",
    ]
    for rel, r in rows:
        if "why" in r:
            lines.append(f"| {rel} | no | - | - | {r['why']} | - | - |")
        else:
            lines.append(
                f"| {rel} | {'yes' if r['ok'] else 'no'} | {r['max_abs']:.3g} | {r['max_rel']:.3g} | {r['column']} "
                f"| {r['cells_out']} | {r['text_cells']} |"
            )
    for name, only in (("A", fa - fb), ("B", fb - fa)):
        if only:
            lines.append(f"\nOnly in run {name}: " + ", ".join(sorted(map(str, only))))
    for rel in sorted(r for r in fa & fb if r.name == "claims.csv"):
        a, b = pd.read_csv(args.run_a / rel), pd.read_csv(args.run_b / rel)
        col = next((c for c in VERDICT_COLUMNS if c in a.columns and c in b.columns), None)
        if col is None or len(a) != len(b):
            lines.append(f"\n{rel}: cannot compare verdicts (columns {list(a.columns)[:8]}, rows {len(a)}/{len(b)})")
            continue
        changed = a[a[col].astype(str) != b[col].astype(str)]
        ids = ", ".join(map(str, changed.iloc[:, 0].tolist())) if len(changed) else "none"
        lines.append(f"\n{rel}: column `{col}`, {len(changed)} of {len(a)} verdicts changed ({ids})")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.md:
        args.md.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
