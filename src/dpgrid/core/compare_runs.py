"""Compare two runs' ``results/`` trees table by table, under a stated tolerance per table.

A change made for speed or correctness may move numbers; it is declared by comparing the new run with the
previous one. This module does that comparison:

    python -m dpgrid.core.compare_runs OLD_RESULTS NEW_RESULTS [--tol GLOB=RTOL,ATOL ...] [--default-tol RTOL,ATOL]
                                  [--markdown OUT.md]

For every file present in both trees with different bytes:

- a CSV table is read as text (no NA conversion) and compared cell by cell: the header and the shape must be the
  same; a column whose cells all parse as numbers (empty / NaN cells allowed, they must be empty / NaN on both
  sides) is compared numerically, a cell passing when ``|new - old| <= atol + rtol * |old|``; any other column
  must match exactly. The report gives, per table, the largest absolute and relative difference and the number of
  cells out of tolerance;
- other files (figures, logs, Markdown) are listed as "differs (not a table)": a figure drawn from moved numbers
  differs too, and is judged by its table.

Tolerances come from ``--tol GLOB=RTOL,ATOL`` (fnmatch on the path relative to the results root, first match wins)
and otherwise ``--default-tol`` (exact by default). ``claims.csv`` files (any ``*claims.csv``) are also compared
by claim id: every verdict that changed is listed.

Exit status: 0 when every table is within tolerance, the two trees hold the same files and no claim verdict
changed; 1 otherwise; 2 for a usage error.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd


class CompareError(ValueError):
    """Bad input: a missing directory, a malformed tolerance."""


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float

    def __str__(self) -> str:
        return f"rel {self.rtol:g}, abs {self.atol:g}"


@dataclass
class TableDiff:
    """The comparison of one CSV present in both trees."""

    path: str
    tolerance: Tolerance
    structure: str = ""  # non-empty when header or shape differ: the tables cannot be compared cell by cell
    max_abs: float = 0.0
    max_rel: float = 0.0
    numeric_cells_moved: int = 0
    numeric_cells_out: int = 0
    text_cells_changed: int = 0
    worst: str = ""  # "column, row" of the largest relative move

    @property
    def within(self) -> bool:
        return not self.structure and self.numeric_cells_out == 0 and self.text_cells_changed == 0


@dataclass
class VerdictChange:
    claim_id: str
    old: str
    new: str


@dataclass
class RunComparison:
    identical: list[str] = field(default_factory=list)
    only_old: list[str] = field(default_factory=list)
    only_new: list[str] = field(default_factory=list)
    tables: list[TableDiff] = field(default_factory=list)
    other_differing: list[str] = field(default_factory=list)
    verdicts: list[VerdictChange] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.only_old and not self.only_new and all(t.within for t in self.tables) and not self.verdicts


def parse_tolerance(text: str) -> Tolerance:
    """``"RTOL,ATOL"`` -> Tolerance (both finite and >= 0)."""
    parts = text.split(",")
    if len(parts) != 2:
        raise CompareError(f"tolerance {text!r}: expected RTOL,ATOL (e.g. 1e-9,1e-12)")
    try:
        rtol, atol = (float(p) for p in parts)
    except ValueError:
        raise CompareError(f"tolerance {text!r}: RTOL and ATOL must be numbers") from None
    if not (math.isfinite(rtol) and math.isfinite(atol)) or rtol < 0 or atol < 0:
        raise CompareError(f"tolerance {text!r}: RTOL and ATOL must be finite and >= 0")
    return Tolerance(rtol, atol)


def tolerance_for(path: str, rules: Sequence[tuple[str, Tolerance]], default: Tolerance) -> Tolerance:
    for pattern, tol in rules:
        if fnmatch.fnmatch(path, pattern):
            return tol
    return default


def _files(root: Path) -> dict[str, Path]:
    if not root.is_dir():
        raise CompareError(f"results directory {root} does not exist or is not a directory")
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _as_numbers(cells: pd.Series) -> pd.Series | None:
    """The column as floats when every non-empty cell is a number, else None (a text column)."""
    stripped = cells.str.strip()
    empty = stripped.eq("") | stripped.str.lower().isin(["nan", "na"])
    numbers = pd.to_numeric(stripped.where(~empty), errors="coerce")
    if (numbers.isna() & ~empty).any():
        return None
    return numbers.astype(float)


def compare_tables(old: Path, new: Path, rel: str, tol: Tolerance) -> TableDiff:
    """Cell-by-cell comparison of two CSV files (see the module docstring)."""
    diff = TableDiff(rel, tol)
    a = pd.read_csv(old, dtype=str, keep_default_na=False)
    b = pd.read_csv(new, dtype=str, keep_default_na=False)
    if list(a.columns) != list(b.columns):
        diff.structure = f"columns differ: {list(a.columns)} -> {list(b.columns)}"
        return diff
    if a.shape != b.shape:
        diff.structure = f"shape differs: {a.shape} -> {b.shape}"
        return diff
    for col in a.columns:
        x, y = _as_numbers(a[col]), _as_numbers(b[col])
        if x is None or y is None:
            diff.text_cells_changed += int((a[col] != b[col]).sum())
            continue
        both_nan = x.isna() & y.isna()
        one_nan = x.isna() ^ y.isna()
        diff.numeric_cells_out += int(one_nan.sum())
        d = (y - x).abs().where(~(both_nan | one_nan), 0.0)
        scale = x.abs()
        rel_move = (d / scale.where(scale > 0)).fillna(0.0).where(d > 0, 0.0)
        rel_move = rel_move.where(~((scale == 0) & (d > 0)), math.inf)
        diff.numeric_cells_moved += int((d > 0).sum())
        diff.numeric_cells_out += int((d > tol.atol + tol.rtol * scale).sum())
        if len(d) and d.max() > diff.max_abs:
            diff.max_abs = float(d.max())
        if len(rel_move) and rel_move.max() > diff.max_rel:
            diff.max_rel = float(rel_move.max())
            diff.worst = f"{col}, row {int(rel_move.to_numpy().argmax()) + 2}"
    return diff


def _verdicts(path: Path) -> dict[str, str]:
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    if "claim_id" not in df.columns or "verdict" not in df.columns:
        return {}
    return dict(zip(df["claim_id"], df["verdict"]))


def compare_runs(
    old_root: Path, new_root: Path, rules: Sequence[tuple[str, Tolerance]] = (), default: Tolerance | None = None
) -> RunComparison:
    default = default or Tolerance(0.0, 0.0)
    old, new = _files(Path(old_root)), _files(Path(new_root))
    out = RunComparison()
    out.only_old = sorted(set(old) - set(new))
    out.only_new = sorted(set(new) - set(old))
    for rel in sorted(set(old) & set(new)):
        if _sha256(old[rel]) == _sha256(new[rel]):
            out.identical.append(rel)
        elif rel.endswith(".csv"):
            out.tables.append(compare_tables(old[rel], new[rel], rel, tolerance_for(rel, rules, default)))
        else:
            out.other_differing.append(rel)
        if rel.endswith("claims.csv"):
            before, after = _verdicts(old[rel]), _verdicts(new[rel])
            for cid in sorted(set(before) | set(after)):
                if before.get(cid) != after.get(cid):
                    out.verdicts.append(VerdictChange(cid, before.get(cid, "(absent)"), after.get(cid, "(absent)")))
    return out


def to_markdown(cmp: RunComparison) -> str:
    lines = [
        f"{len(cmp.identical)} files identical, {len(cmp.tables)} tables differ "
        f"({sum(not t.within for t in cmp.tables)} beyond tolerance), {len(cmp.other_differing)} other files differ, "
        f"{len(cmp.only_old)} only in the old run, {len(cmp.only_new)} only in the new run, "
        f"{len(cmp.verdicts)} claim verdicts changed.",
        "",
    ]
    if cmp.tables:
        lines += [
            "| table | tolerance | cells moved | beyond tolerance | max abs | max rel | largest rel. move at | verdict |",
            "|---|---|---:|---:|---:|---:|---|---|",
        ]
        for t in cmp.tables:
            status = "within" if t.within else ("structure: " + t.structure if t.structure else "BEYOND")
            if t.text_cells_changed:
                status += f" ({t.text_cells_changed} text cells changed)"
            lines.append(
                f"| {t.path} | {t.tolerance} | {t.numeric_cells_moved} | {t.numeric_cells_out} | {t.max_abs:.3g} "
                f"| {t.max_rel:.3g} | {t.worst} | {status} |"
            )
        lines.append("")
    for title, items in (
        ("Only in the old run", cmp.only_old),
        ("Only in the new run", cmp.only_new),
        ("Other files that differ (not tables)", cmp.other_differing),
    ):
        if items:
            lines += [f"{title}: " + ", ".join(items), ""]
    if cmp.verdicts:
        lines += ["| claim | old verdict | new verdict |", "|---|---|---|"]
        lines += [f"| {v.claim_id} | {v.old} | {v.new} |" for v in cmp.verdicts]
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dpgrid.core.compare_runs", description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--tol", action="append", default=[], metavar="GLOB=RTOL,ATOL")
    parser.add_argument("--default-tol", default="0,0", metavar="RTOL,ATOL")
    parser.add_argument("--markdown", type=Path, help="also write the report to this file")
    args = parser.parse_args(argv)
    try:
        rules = []
        for item in args.tol:
            glob, sep, tol = item.partition("=")
            if not sep or not glob:
                raise CompareError(f"--tol {item!r}: expected GLOB=RTOL,ATOL")
            rules.append((glob, parse_tolerance(tol)))
        cmp = compare_runs(args.old, args.new, rules, parse_tolerance(args.default_tol))
    except CompareError as exc:
        print(f"compare_runs: {exc}", file=sys.stderr)
        return 2
    report = to_markdown(cmp)
    print(report)
    if args.markdown:
        args.markdown.write_text(report + "\n")
    return 0 if cmp.ok else 1


if __name__ == "__main__":
    sys.exit(main())
