"""How meter-data problems are reported: :class:`MeterDataError`, whose message names the source (file), the
field, the offending rows (several, capped) and their values; :class:`Problems` collects row-level problems of
one file and raises them together (README "Your own meter data").
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: Where every bring-your-own-data error points the user.
SEE_README = "see README 'Your own meter data'"
#: Rows (and meters) shown per problem in a message; the others are counted.
MAX_ROWS_SHOWN = 5
_MAX_VALUE_CHARS = 40


class MeterDataError(ValueError):
    """Meter data that cannot be used; the message names the source, field, rows and values."""


def format_rows(idx, offset: int) -> str:
    """Row numbers as a user sees them (``offset`` added), at most a few, then a count."""
    idx = list(idx)
    shown = ", ".join(str(int(i) + offset) for i in idx[:MAX_ROWS_SHOWN])
    more = f" and {len(idx) - MAX_ROWS_SHOWN} more" if len(idx) > MAX_ROWS_SHOWN else ""
    return f"{shown}{more}"


def show_value(v) -> str:
    """A cell value for a message: repr of the text, shortened."""
    if isinstance(v, (float, np.floating)):
        return f"{float(v):g}"
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return str(int(v))
    if isinstance(v, (np.datetime64, pd.Timestamp)):
        return f"'{pd.Timestamp(v)}'"
    s = str(v)
    if len(s) > _MAX_VALUE_CHARS:
        s = s[: _MAX_VALUE_CHARS - 3] + "..."
    return repr(s)


def format_cells(rows, values, total: int | None = None) -> str:
    """``7 ('0,41'), 9 ('x') and 3 more``: a few rows with their values, then a count."""
    rows, values = list(rows), list(values)
    total = len(rows) if total is None else total
    shown = ", ".join(f"{int(r)} ({show_value(v)})" for r, v in zip(rows[:MAX_ROWS_SHOWN], values[:MAX_ROWS_SHOWN]))
    shown_n = min(len(rows), MAX_ROWS_SHOWN)
    return shown + (f" and {total - shown_n} more" if total > shown_n else "")


@dataclass
class _Problem:
    text: str
    hint: str
    rows: list = field(default_factory=list)
    values: list = field(default_factory=list)
    count: int = 0


class Problems:
    """Row-level problems of one file, collected (a few example rows each, plus counts) and raised
    together as one :class:`MeterDataError`, one line per kind of problem."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._items: dict[str, _Problem] = {}

    def add(self, key: str, text: str, rows, values, hint: str = "", total: int | None = None) -> None:
        """Record rows (file row numbers) whose field has a problem; ``text`` names the field.
        ``total``: the number of such rows when ``rows`` holds only examples."""
        rows = np.asarray(rows)
        if not len(rows):
            return
        p = self._items.setdefault(key, _Problem(text, hint))
        room = MAX_ROWS_SHOWN - len(p.rows)
        if room > 0:
            p.rows += [int(r) for r in rows[:room]]
            p.values += list(values[:room])
        p.count += len(rows) if total is None else total

    def __bool__(self) -> bool:
        return bool(self._items)

    def message(self) -> str:
        lines = []
        for p in self._items.values():
            if p.count:
                line = f"{self.source}: {p.text} in row(s) {format_cells(p.rows, p.values, p.count)}"
            else:
                line = f"{self.source}: {p.text}"
            lines.append(line + (f"; {p.hint}" if p.hint else ""))
        return "\n".join(lines) + f" ({SEE_README})"

    def raise_if_any(self) -> None:
        if self:
            raise MeterDataError(self.message())
