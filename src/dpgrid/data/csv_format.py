"""Bring-your-own CSV files at the level of the file: encoding, header, fields per row, typed chunks, and the
time-zone conversions of their timestamps. The rules of the format are in :mod:`dpgrid.data.csvfile` (the
reader); :class:`CsvReadings` is what it returns.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from dpgrid.data.problems import MAX_ROWS_SHOWN, SEE_README, MeterDataError, format_cells

#: Texts of ``kw`` that mean "missing reading".
MISSING_KW = ["", "NaN", "nan", "NA"]
CHUNK_ROWS = 500_000
_INTEGER = re.compile(r"^\s*[+-]?\d+\s*$")


@dataclass
class CsvReadings:
    """A checked readings file, sorted by meter (order of first appearance) then local time."""

    path: str
    names: np.ndarray  # meter ids in order of first appearance (object)
    first_row: np.ndarray  # file row of each meter's first reading
    code: np.ndarray  # per reading: index into names
    ts: np.ndarray  # per reading: local wall-clock time, int64 ns (naive)
    kw: np.ndarray  # per reading: kW, NaN = missing reading
    row: np.ndarray  # per reading: file row
    step_ns: int  # the file's step
    n_rows: int  # reading rows in the file (blank lines not counted)
    folded: int  # readings averaged into another one (the repeated DST hour)
    timezone: str | None
    offsets: bool  # the timestamps carried UTC offsets (converted to ``timezone``)
    folded_ts: np.ndarray | None = None  # local time of each reading averaged into another one (``folded`` of them)

    @property
    def step(self) -> pd.Timedelta:
        return pd.Timedelta(int(self.step_ns), "ns")

    def span(self) -> tuple[pd.Timestamp, pd.Timestamp]:
        return pd.Timestamp(int(self.ts.min())), pd.Timestamp(int(self.ts.max()))

    def meter_spans(self) -> tuple[np.ndarray, np.ndarray]:
        """First and last local time (int64 ns) of each meter."""
        starts = np.searchsorted(self.code, np.arange(len(self.names)), side="left")
        ends = np.searchsorted(self.code, np.arange(len(self.names)), side="right") - 1
        return self.ts[starts], self.ts[ends]


def file_error(path, text: str) -> MeterDataError:
    """A :class:`MeterDataError` about the file ``path``: its path, ``text``, then where the rules are."""
    return MeterDataError(f"{path}: {text} ({SEE_README})")


def _not_utf8(path: Path) -> MeterDataError:
    """The error for a file that is not UTF-8: the line, byte offset and byte value of its first invalid byte,
    and the line as Windows-1252 (Excel's "CSV" on Western-European Windows) would read it."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")()
    offset, line, tail = 0, 1, b""
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            try:
                decoder.decode(block)
            except UnicodeDecodeError as e:
                # e.start counts from the decoder's pending bytes (an incomplete sequence) plus this block
                pending = len(e.object) - len(block)
                bad = offset - pending + e.start
                data = tail + block
                before = data[: bad - (offset - len(tail))]
                line += before.count(b"\n")
                start = before.rfind(b"\n") + 1
                end = data.find(b"\n", len(before))
                text = data[start : end if end >= 0 else len(data)].decode("cp1252", errors="replace").rstrip("\r")
                return file_error(
                    path,
                    f"not UTF-8 text: line {line} (byte {bad} of the file) holds byte 0x{data[len(before)]:02x}, "
                    f"which is not valid UTF-8 ({e.reason}); read as Windows-1252 the line is {text!r}: the file "
                    f"was probably saved in a legacy encoding (cp1252/Latin-1); save it as UTF-8 CSV "
                    f"(Excel: 'CSV UTF-8')",
                )
            line += block.count(b"\n")
            last = block.rfind(b"\n")
            tail = block[last + 1 :] if last >= 0 else tail + block
            offset += len(block)
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as e:
        return file_error(
            path, f"not UTF-8 text: the file ends inside a multi-byte character ({e.reason}) on line {line}"
        )
    return file_error(path, "not UTF-8 text; save the file as UTF-8 CSV")


def read_header(path: Path, expected: tuple[str, ...], what: str, allow_extra: bool = False) -> list[str]:
    """Column names of the first line (stripped); errors for an empty file or a wrong header."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            first = fh.readline()
            rest = fh.read(1) if not first.strip() else "x"
    except UnicodeDecodeError as e:
        raise _not_utf8(path) from e
    want = ",".join(expected)
    if not first.strip():
        if not rest:
            raise file_error(
                path,
                f"the file is empty: the {what} file needs a header line '{want}' and one row per "
                f"{'meter and interval' if 'kw' in expected else 'meter'}",
            )
        raise file_error(path, f"the first line is blank: it must be the header '{want}'")
    names = [n.strip() for n in next(csv.reader([first]))]
    missing = [c for c in expected if c not in names]
    if missing:
        hint = ""
        if len(names) == 1:
            sep = next((s for s in (";", "\t", "|") if s in names[0]), None)
            if sep:
                hint = f"; the file seems to use {sep!r} as separator: dpgrid reads ',' only"
        raise file_error(path, f"missing column(s) {missing} in the header {first.strip()!r}; expected '{want}'{hint}")
    extra = [n for n in names if n not in expected]
    if extra and not allow_extra:
        raise file_error(
            path,
            f"unexpected column(s) {extra} in the header {first.strip()!r}; expected '{want}' "
            f"(kw in kW: convert other units and drop other columns)",
        )
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        raise file_error(path, f"column(s) {dups} appear twice in the header {first.strip()!r}")
    return names


def _field_count_error(path: Path, n_fields: int, header: str, chunk_error: str = "") -> MeterDataError:
    """Scan the file for rows whose number of fields differs from the header's (error path only)."""
    rows, values, total, comma = [], [], 0, False
    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh)
        next(reader, None)
        try:
            for fields in reader:
                if not fields or len(fields) == n_fields:
                    continue
                total += 1
                if len(rows) < MAX_ROWS_SHOWN:
                    rows.append(reader.line_num)
                    values.append(",".join(fields))
                if len(fields) == n_fields + 1 and all(_INTEGER.match(f) for f in fields[-2:]):
                    comma = True
        except csv.Error as e:
            raise file_error(path, f"cannot be read as CSV near row {reader.line_num}: {e}") from e
    if not total:
        return file_error(path, f"cannot be read as CSV: {chunk_error}")
    hint = f"each row needs {n_fields} fields like the header {header!r}; a field that holds a comma must be quoted"
    if comma:
        hint = (
            "a decimal comma (0,41) splits a number into two fields: write numbers with a decimal point (0.41); " + hint
        )
    return file_error(
        path,
        f"wrong number of fields in row(s) {format_cells(rows, values, total)} (the header has {n_fields}); {hint}",
    )


def read_chunks(path: Path, names: list[str], dtype: dict, na_values: dict, chunksize: int, fast: bool = False):
    """Chunks of the file with typed columns and checked shape (row index = position in the file).

    With ``fast`` (a float column), a value the C parser cannot convert raises :class:`SlowPath`."""
    header = ",".join(names)
    try:  # the reader decodes and tokenizes its first buffer already
        reader = pd.read_csv(
            path,
            header=0,
            names=names,
            dtype=dtype,
            keep_default_na=False,
            na_values=na_values,
            skip_blank_lines=False,
            chunksize=chunksize,
            encoding="utf-8-sig",
        )
    except UnicodeDecodeError as e:
        raise _not_utf8(path) from e
    except pd.errors.ParserError as e:  # e.g. an unclosed quote in the first rows
        raise _parser_error(path, names, header, e) from e
    start = 0
    with reader:
        while True:
            try:
                chunk = next(reader)
            except StopIteration:
                return
            except UnicodeDecodeError as e:
                raise _not_utf8(path) from e
            except pd.errors.ParserError as e:
                raise _parser_error(path, names, header, e) from e
            except ValueError as e:
                if fast:
                    raise SlowPath() from e
                raise file_error(path, f"cannot be read as CSV: {e}") from e
            if not isinstance(chunk.index, pd.RangeIndex) or chunk.index.start != start:
                raise _field_count_error(path, len(names), header)
            yield start, chunk
            start += len(chunk)


def _parser_error(path: Path, names: list[str], header: str, error: pd.errors.ParserError):
    """The named error for what pandas' C parser could not tokenize: an unclosed quote, or a row with the wrong
    number of fields."""
    if "EOF inside string" in str(error):
        return file_error(
            path,
            f'cannot be read as CSV: a double quote (") opens a field that is never closed ({error}); a field '
            f"that starts with a quote must end with one, and a quote inside a field is written twice",
        )
    return _field_count_error(path, len(names), header, str(error))


class SlowPath(Exception):
    """A kw value is not a float: read again with kw as text to name the rows."""


def utc_to_local(ns: np.ndarray, zone: str) -> np.ndarray:
    """UTC instants (int64 ns) as the naive wall-clock times of ``zone`` (int64 ns)."""
    return pd.DatetimeIndex(ns.view("datetime64[ns]"), tz="UTC").tz_convert(zone).tz_localize(None).asi8


def localize_flags(ns: np.ndarray, zone: str) -> tuple[np.ndarray, np.ndarray]:
    """(nonexistent, ambiguous) masks of naive wall-clock times in ``zone``."""
    idx = pd.DatetimeIndex(ns.view("datetime64[ns]"))
    ones = np.ones(len(idx), dtype=bool)
    as_dst = idx.tz_localize(zone, ambiguous=ones, nonexistent="NaT")
    as_std = idx.tz_localize(zone, ambiguous=~ones, nonexistent="NaT")
    nonexistent = np.asarray(as_dst.isna())
    ambiguous = ~nonexistent & (as_dst.asi8 != as_std.asi8)
    return nonexistent, ambiguous


def nonexistent_times(ns: np.ndarray, zone: str | None) -> np.ndarray:
    """Mask of naive wall-clock times (int64 ns) that do not exist in ``zone`` (skipped when DST starts)."""
    if zone is None:
        return np.zeros(len(ns), dtype=bool)
    return localize_flags(np.asarray(ns, dtype=np.int64), zone)[0]
