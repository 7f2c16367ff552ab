"""Bring-your-own CSV meter data: read, check and put on the meters' local clock (README "Your own meter data").

Readings file: a header line naming the columns ``meter_id``, ``timestamp``, ``kw`` (any order), then one
row per meter and interval. Row numbers in messages are the file's line numbers (the header is row 1,
the first reading row 2), as an editor or a spreadsheet shows them.

Rules applied by :func:`read_readings_csv` (every one documented in docs/data.md):

* ``kw`` is the average power over the interval in kW; an empty field or ``NaN``/``nan``/``NA`` is a
  *missing reading* (treated like an absent row: a gap); any other non-number is an error; finite values
  outside ``plausible_kw`` (default -50 .. 500 kW) are errors.
* ``timestamp`` is ISO 8601 (``2020-03-02 00:30:00``, ``2020-03-02T00:30``, ...) and marks the *start*
  of the interval. Without a UTC offset it is the meters' local wall-clock time, taken as is. With an
  offset (``+01:00``, ``Z``) it is an instant: ``timezone`` (an IANA name such as ``Europe/Paris``) must
  then be given, and the instant is converted to that zone's wall-clock time and made naive; without
  ``timezone`` such a file is rejected. When daylight saving time ends, the zone's repeated hour holds
  two readings per local interval: they are averaged. The local hour skipped when it starts has no
  readings: the loader fills it like a gap but does not count it against the fill limit
  (:func:`dpgrid.data.resample.resample_to_step`). With ``timezone`` set, naive timestamps are that zone's
  wall-clock time (a time that does not exist there is an error). Naive timestamps cannot tell the two
  occurrences of the repeated hour apart: a duplicate there is an error that says so.
* Rows may come in any order; meters keep the order of their first row. Duplicate (meter, time) rows
  are errors. The file's step is the most frequent difference between consecutive readings of a meter;
  every meter must have that step, the step must divide a day, and every timestamp must lie on the
  step's grid (a multiple of the step after midnight) - off-grid timestamps are errors, never
  reinterpreted.

Errors are :class:`dpgrid.data.problems.MeterDataError` naming the file, the field, rows and values (all
kinds of row problems found in one pass, a few rows each). The file is read in chunks with typed
columns; each distinct timestamp text is parsed once.

The file-level reading (encoding, header, chunks, time zones) is :mod:`dpgrid.data.csv_format`; the checks of
the file as a whole (duplicates and the repeated DST hour, step, grid) are :mod:`dpgrid.data.csv_checks`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from dpgrid.data.checks import DEFAULT_PLAUSIBLE_KW, implausible_kw, outside_range, plausible_range
from dpgrid.data.csv_checks import check_grid, file_step, fold_repeated_hour
from dpgrid.data.csv_format import (
    CHUNK_ROWS,
    MISSING_KW,
    CsvReadings,
    SlowPath,
    file_error,
    nonexistent_times,
    read_chunks,
    read_header,
    utc_to_local,
)
from dpgrid.data.fields import (
    FORMULA_ID_HINT,
    FORMULA_ID_TEXT,
    METER_COLUMNS,
    READING_COLUMNS,
    TS_BAD,
    TS_EMPTY,
    TS_NAIVE,
    TS_OFFSET,
    clean_coded_ids,
    clean_meter_ids,
    formula_like_ids,
    parse_timestamp_texts,
    zone_or_error,
)
from dpgrid.data.problems import MAX_ROWS_SHOWN, SEE_README, MeterDataError, Problems, format_cells

_DECIMAL_COMMA = re.compile(r"^\s*[+-]?\d+,\d+\s*$")


def read_readings_csv(
    path,
    *,
    timezone: str | None = None,
    plausible_kw=DEFAULT_PLAUSIBLE_KW,
    chunksize: int = CHUNK_ROWS,
    key: str = "data.experiments.<experiment>",
) -> CsvReadings:
    """Read and check a readings file (see the module docstring for the rules).

    ``key`` is the config entry the messages point to (``data.experiments.dpkmeans``).
    Raises :class:`MeterDataError`; nothing is written.
    """
    path = Path(path)
    if not path.is_file():
        raise file_error(path, f"readings file not found ({key}.readings)")
    lo, hi = plausible_range(plausible_kw)
    zone = None
    if timezone is not None:
        zone_or_error(timezone, f"config: {key}.timezone")
        zone = str(timezone)
    names = read_header(path, tuple(READING_COLUMNS), "readings")
    na = {"meter_id": [""], "timestamp": [""], "kw": MISSING_KW}
    for fast in (True, False):
        try:
            return _read_readings(path, names, na, fast, zone, lo, hi, chunksize, key)
        except SlowPath:
            continue
    raise AssertionError("unreachable")


def _few(cat: pd.Categorical, idx: np.ndarray) -> np.ndarray:
    """The texts of a categorical column at the first few positions ``idx`` (missing: '')."""
    v = np.asarray(cat[idx[:MAX_ROWS_SHOWN]], dtype=object)
    return np.array(["" if pd.isna(x) else x for x in v], dtype=object)


def _chunk_kw(chunk: pd.DataFrame, fast: bool, rows: np.ndarray, problems: Problems) -> tuple[np.ndarray, np.ndarray]:
    """A chunk's kW values and which are missing; text that is not a number is reported (fast path: read as floats
    by pandas, which raises SlowPath on such text)."""
    if fast:
        kw = chunk["kw"].to_numpy(dtype="float64")
        return kw, np.isnan(kw)
    raw_kw = chunk["kw"].to_numpy(dtype=object)
    kw = pd.to_numeric(chunk["kw"], errors="coerce").to_numpy(dtype="float64")
    kw_missing = pd.isna(raw_kw)
    bad = np.flatnonzero(np.isnan(kw) & ~kw_missing)
    if len(bad):
        vals = raw_kw[bad]
        comma = any(_DECIMAL_COMMA.match(str(v)) for v in vals[:MAX_ROWS_SHOWN])
        problems.add(
            "kw-num",
            "field 'kw' is not numeric",
            rows[bad],
            vals,
            "write kW with a decimal point (0.41), not a decimal comma"
            if comma
            else "kw must be a number (average kW over the interval); leave it empty for a missing reading",
        )
    return kw, kw_missing


def _file_wide_codes(
    codes: np.ndarray, local_names, rows: np.ndarray, ids: dict[str, int], id_names: list[str], first_rows: list[int]
) -> np.ndarray:
    """A chunk's meter codes as file-wide codes, new meters numbered in order of first appearance (``ids``,
    ``id_names`` and ``first_rows`` are extended in place); -1 stays -1 (no id)."""
    lut = np.full(len(local_names) + 1, -1, dtype=np.int64)
    if len(local_names):
        valid = np.flatnonzero(codes >= 0)
        firsts = pd.Series(codes[valid]).drop_duplicates()
        first_pos = np.empty(len(local_names), dtype=np.int64)
        first_pos[firsts.to_numpy()] = valid[firsts.index.to_numpy()]
        for j in np.argsort(first_pos, kind="stable"):
            name = local_names[j]
            if name not in ids:
                ids[name] = len(id_names)
                id_names.append(name)
                first_rows.append(int(rows[first_pos[j]]))
            lut[j] = ids[name]
    return lut[codes]


def _sorted_rows(parts: list, has_zone: bool, n_rows: int):
    """The chunks' rows as one sorted table: (meter code, time, kW, instant or None, file row), sorted by meter,
    then time (stable: equal keys keep the file's order; skipped when already sorted)."""
    code = np.concatenate([p[0] for p in parts])
    ts = np.concatenate([p[1] for p in parts])
    kw = np.concatenate([p[2] for p in parts])
    inst = np.concatenate([p[3] for p in parts]) if has_zone else None
    if all(p[4] is None for p in parts):  # no blank or skipped line: row = position + 2
        row = None
    else:
        row = np.concatenate([p[4] if p[4] is not None else p[5] + 2 + np.arange(len(p[0])) for p in parts])
    same = code[1:] == code[:-1]
    if not ((code[1:] >= code[:-1]).all() and ((ts[1:] > ts[:-1]) | ~same).all()):
        order = np.lexsort((ts, code))
        code, ts, kw = code[order], ts[order], kw[order]
        row = (order + 2) if row is None else row[order]
        if inst is not None:
            inst = inst[order]
        del order
    elif row is None:
        row = np.arange(2, n_rows + 2, dtype=np.int64)
    if len(row) and row.max() < 2**31:
        row = row.astype(np.int32)
    return code, ts, kw, inst, row


@dataclass
class _TimestampKinds:
    """Across a file's chunks: how many rows carry a UTC offset and how many do not, a few examples of each."""

    n_naive: int = 0
    n_offset: int = 0
    naive_rows: list = field(default_factory=list)
    offset_rows: list = field(default_factory=list)


def _chunk_timestamps(
    ts_cat, ts_codes: np.ndarray, id_cat, rows: np.ndarray, keep: np.ndarray, zone, problems: Problems, kinds, tz_hint
):
    """A chunk's timestamps parsed and checked (empty, not ISO 8601, offset without a zone, nonexistent local
    time): (wall-clock ns, kind per row, the instant per row or None without a zone); counts go to ``kinds``."""
    u_ns, u_kind = parse_timestamp_texts(ts_cat.categories)
    ns, kind = u_ns[ts_codes], u_kind[ts_codes]
    empty = np.flatnonzero((kind == TS_EMPTY) & keep)
    problems.add(
        "ts-empty",
        "field 'timestamp' is empty",
        rows[empty],
        _few(id_cat, empty),
        "every row needs the start of its interval (shown: the row's meter_id)",
    )
    badts = np.flatnonzero(kind == TS_BAD)
    problems.add(
        "ts-bad",
        "field 'timestamp' is not an ISO 8601 date-time",
        rows[badts],
        _few(ts_cat, badts),
        "write e.g. 2020-03-02 00:30:00 (the start of the interval), optionally with a UTC offset",
    )
    off = kind == TS_OFFSET
    naive = (kind == TS_NAIVE) & keep
    n_off_chunk = int(off.sum())
    kinds.n_offset += n_off_chunk
    kinds.n_naive += int(naive.sum())
    if n_off_chunk and len(kinds.offset_rows) < MAX_ROWS_SHOWN:
        i = np.flatnonzero(off)
        kinds.offset_rows += list(zip(rows[i[:MAX_ROWS_SHOWN]], _few(ts_cat, i)))
    if len(kinds.naive_rows) < MAX_ROWS_SHOWN and naive.any():
        i = np.flatnonzero(naive)
        kinds.naive_rows += list(zip(rows[i[:MAX_ROWS_SHOWN]], _few(ts_cat, i)))
    inst = None
    if zone is None:
        i = np.flatnonzero(off)
        problems.add(
            "ts-offset",
            "field 'timestamp' carries a UTC offset but no time zone is set",
            rows[i],
            _few(ts_cat, i),
            tz_hint,
        )
    else:
        inst = ns.copy()  # the instant (UTC) for offset times, the wall-clock time for naive ones
        if n_off_chunk:
            ns[off] = utc_to_local(ns[off], zone)
        if naive.any():
            nonexist = np.zeros(len(ns), dtype=bool)
            nonexist[naive] = nonexistent_times(ns[naive], zone)
            i = np.flatnonzero(nonexist)
            problems.add(
                "ts-nonexistent",
                f"field 'timestamp' is a time that does not exist in {zone} "
                f"(the hour skipped when daylight saving time starts)",
                rows[i],
                _few(ts_cat, i),
                "check the export's clock, or export timestamps with UTC offsets",
            )

    return ns, kind, inst


def _read_readings(path, names, na, fast, zone, lo, hi, chunksize, key) -> CsvReadings:
    problems = Problems(str(path))
    dtype = {"meter_id": "category", "timestamp": "category", "kw": "float64" if fast else str}
    ids: dict[str, int] = {}
    id_names: list[str] = []
    first_rows: list[int] = []
    parts = []
    kinds = _TimestampKinds()  # a few examples of each kind, for the "mixed" message
    tz_hint = (
        f"set {key}.timezone to the meters' IANA time zone (e.g. 'Europe/Paris'): timestamps with a UTC "
        f"offset are then converted to that zone's wall-clock time (validate: --timezone)"
    )
    for start, chunk in read_chunks(path, names, dtype, na, chunksize, fast):
        rows = start + 2 + np.arange(len(chunk))
        id_cat = chunk["meter_id"].array
        ts_cat = chunk["timestamp"].array
        kw, kw_missing = _chunk_kw(chunk, fast, rows, problems)
        codes, local_names = clean_coded_ids(id_cat.codes, id_cat.categories)
        ts_codes = np.asarray(ts_cat.codes, dtype=np.int64)
        blank = (codes < 0) & (ts_codes < 0) & kw_missing
        no_id = np.flatnonzero((codes < 0) & ~blank)
        problems.add(
            "id",
            "field 'meter_id' is empty",
            rows[no_id],
            _few(ts_cat, no_id),
            "every row needs the meter's id (shown: the row's timestamp)",
        )
        codes = _file_wide_codes(codes, local_names, rows, ids, id_names, first_rows)

        keep = ~blank
        ns, kind, inst = _chunk_timestamps(ts_cat, ts_codes, id_cat, rows, keep, zone, problems, kinds, tz_hint)
        out = np.flatnonzero(implausible_kw(kw, lo, hi))
        problems.add(
            "kw-range",
            f"field 'kw' {outside_range(lo, hi)}",
            rows[out],
            kw[out],
            "kw is the average power in kW: is the unit W or Wh? Convert to kW, or widen data.plausible_kw "
            "(validate: --plausible-kw)",
        )
        ok = keep & ((kind == TS_NAIVE) | (kind == TS_OFFSET)) & (codes >= 0)
        if ok.all():  # the usual case: the part's rows are start + 2, start + 3, ... (not stored)
            parts.append((codes.astype(np.int32), ns, kw, inst, None, start))
        else:
            parts.append(
                (codes[ok].astype(np.int32), ns[ok], kw[ok], None if inst is None else inst[ok], rows[ok], start)
            )

    formula = formula_like_ids(id_names)
    problems.add(
        "id-formula",
        FORMULA_ID_TEXT,
        np.asarray(first_rows, dtype=np.int64)[formula],
        np.asarray(id_names, dtype=object)[formula],
        FORMULA_ID_HINT + " (shown: each such meter's first row)",
        total=len(formula),
    )
    if zone is not None and kinds.n_offset and kinds.n_naive:
        r, v = zip(*kinds.offset_rows[:MAX_ROWS_SHOWN])
        problems.add(
            "ts-mixed",
            "field 'timestamp' has no UTC offset",
            [r for r, _ in kinds.naive_rows],
            [v for _, v in kinds.naive_rows],
            f"other rows carry one, e.g. row(s) {format_cells(r, v, kinds.n_offset)}: give every timestamp an "
            f"offset, or none",
            total=kinds.n_naive,
        )
    problems.raise_if_any()
    n_rows = sum(len(p[0]) for p in parts)
    if n_rows == 0:
        raise file_error(path, "no readings: the file has a header line but no data rows")

    code, ts, kw, inst, row = _sorted_rows(parts, zone is not None, n_rows)
    del parts
    names = np.asarray(id_names, dtype=object)

    code, ts, kw, row, folded_ts = fold_repeated_hour(path, code, ts, kw, row, inst, names, zone, key)
    step = file_step(path, code, ts, names, first_rows)
    check_grid(path, ts, row, step, zone)
    return CsvReadings(
        str(path),
        names,
        np.asarray(first_rows, dtype=np.int64),
        code.astype(np.int32),
        ts,
        kw,
        row,
        step,
        n_rows,
        len(folded_ts),
        zone,
        kinds.n_offset > 0,
        folded_ts,
    )


def read_meters_csv(path, readings: CsvReadings, key: str = "data.experiments.<experiment>") -> pd.DataFrame:
    """The meters file (``meter_id,customer_class``), checked against the readings; returned in the
    readings' meter order."""
    path = Path(path)
    if not path.is_file():
        raise file_error(
            path,
            f"meters file not found ({key}.meters; leave the key out or set it to null to make "
            f"every meter residential)",
        )
    names = read_header(path, tuple(METER_COLUMNS), "meters", allow_extra=True)
    chunks = list(read_chunks(path, names, {n: str for n in names}, {n: [""] for n in names}, CHUNK_ROWS))
    m = pd.concat([c for _, c in chunks], ignore_index=True) if chunks else pd.DataFrame(columns=names)
    rows = np.arange(len(m)) + 2
    problems = Problems(str(path))
    raw_id = m["meter_id"].to_numpy(dtype=object)
    codes, _ = clean_meter_ids(raw_id)
    cls = m["customer_class"].to_numpy(dtype=object)
    cls_s = np.array(["" if pd.isna(c) else str(c).strip() for c in cls], dtype=object)
    blank = (codes < 0) & (cls_s == "")
    no_id = (codes < 0) & ~blank
    problems.add("id", "field 'meter_id' is empty", rows[no_id], cls_s[no_id])
    ids = np.array(["" if pd.isna(v) else str(v).strip() for v in raw_id], dtype=object)
    no_cls = (cls_s == "") & (codes >= 0)
    problems.add(
        "cls",
        "field 'customer_class' is empty",
        rows[no_cls],
        ids[no_cls],
        "give a class such as residential or commercial (shown: the meter_id)",
    )
    valid = codes >= 0
    dup = valid & pd.Series(ids).duplicated().to_numpy()
    problems.add("dup", "duplicate meter_id", rows[dup], ids[dup])
    problems.raise_if_any()
    listed = dict(zip(ids[valid], zip(cls_s[valid], rows[valid])))
    if not listed:
        raise file_error(path, "no meters: the file has a header line but no data rows")
    unknown = [k for k, name in enumerate(readings.names) if name not in listed]
    lines = []
    if unknown:
        shown = ", ".join(
            f"{readings.names[k]!r} (first in row {readings.first_row[k]})" for k in unknown[:MAX_ROWS_SHOWN]
        )
        more = f" and {len(unknown) - MAX_ROWS_SHOWN} more" if len(unknown) > MAX_ROWS_SHOWN else ""
        lines.append(
            f"{path}: meter(s) {shown}{more} of {readings.path} are not listed; add a row "
            f"'meter_id,customer_class' for each"
        )
    have = set(readings.names.tolist())
    absent = [(name, r) for name, (_, r) in listed.items() if name not in have]
    if absent:
        shown = ", ".join(f"{name!r} (row {r})" for name, r in absent[:MAX_ROWS_SHOWN])
        more = f" and {len(absent) - MAX_ROWS_SHOWN} more" if len(absent) > MAX_ROWS_SHOWN else ""
        lines.append(
            f"{path}: field 'meter_id' names meter(s) with no readings in {readings.path}: {shown}{more}; "
            f"remove them or add their readings"
        )
    if lines:
        raise MeterDataError("\n".join(lines) + f" ({SEE_README})")
    return pd.DataFrame({"meter_id": list(readings.names), "customer_class": [listed[n][0] for n in readings.names]})[
        METER_COLUMNS
    ]


def default_meters(readings: CsvReadings) -> pd.DataFrame:
    """Without a meters file every meter is residential (readings' meter order)."""
    return pd.DataFrame({"meter_id": list(readings.names), "customer_class": "residential"})[METER_COLUMNS]
