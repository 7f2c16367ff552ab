"""Canonical meter data: a tidy table of readings with a validator.

Readings: one row per (meter, timestamp) with columns

==================  =====================================================================
``meter_id``        string identifier of the meter (household or customer)
``timestamp``       ``datetime64[ns]``, naive local time, start of the interval
``kw``              average active power over the interval, kW (float64)
==================  =====================================================================

Meters: one row per meter with ``meter_id`` and ``customer_class`` (``residential`` or
``commercial``; a bring-your-own CSV may give other class names).

:func:`validate_readings` rejects non-numeric values, NaN or negative loads where not allowed,
values outside a plausible range, timestamps carrying a UTC offset, duplicate or unordered
timestamps, irregular sampling and too-short series, with an error that names the source (file),
the field, the offending rows (several, capped) and their values. Callers validate before writing
anything. Bring-your-own CSV files are read by :mod:`dpgrid.data.csvfile`, which applies the
documented time-zone, gap and resampling rules first (README "Your own meter data").
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

from dpgrid.core.io import FLOAT_FORMAT, atomic_path, read_csv_keeping_ids, write_table

READING_COLUMNS = ["meter_id", "timestamp", "kw"]
METER_COLUMNS = ["meter_id", "customer_class"]
#: Where every bring-your-own-data error points the user.
SEE_README = "see README 'Your own meter data'"
_MAX_ROWS_SHOWN = 5
_MAX_VALUE_CHARS = 40

# kinds of a parsed timestamp (parse_timestamps)
TS_NAIVE, TS_OFFSET, TS_BAD, TS_EMPTY = 0, 1, -1, -2
_EPOCH = datetime(1970, 1, 1)
_NS_MIN_YEAR, _NS_MAX_YEAR = 1678, 2261  # datetime64[ns] range, whole years


class MeterDataError(ValueError):
    """Meter data that cannot be used; the message names the source, field, rows and values."""


def format_rows(idx, offset: int) -> str:
    """Row numbers as a user sees them (``offset`` added), at most a few, then a count."""
    idx = list(idx)
    shown = ", ".join(str(int(i) + offset) for i in idx[:_MAX_ROWS_SHOWN])
    more = f" and {len(idx) - _MAX_ROWS_SHOWN} more" if len(idx) > _MAX_ROWS_SHOWN else ""
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
    shown = ", ".join(f"{int(r)} ({show_value(v)})" for r, v in zip(rows[:_MAX_ROWS_SHOWN], values[:_MAX_ROWS_SHOWN]))
    shown_n = min(len(rows), _MAX_ROWS_SHOWN)
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
        room = _MAX_ROWS_SHOWN - len(p.rows)
        if room > 0:
            p.rows += [int(r) for r in rows[:room]]
            p.values += list(values[:room])
        p.count += len(rows) if total is None else total

    def add_text(self, key: str, text: str) -> None:
        """Record a problem that is not about rows (e.g. about meters)."""
        self._items.setdefault(key, _Problem(text, ""))

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


def parse_timestamps(values) -> tuple[np.ndarray, np.ndarray]:
    """ISO 8601 date-times -> (int64 nanoseconds, kind) per value.

    Each distinct text is parsed once (:meth:`datetime.fromisoformat`, Python 3.11: ``T`` or space
    between date and time, optional seconds and fractions, optional ``Z`` / ``+hh:mm`` / ``+hhmm`` /
    ``+hh`` offset). kind is :data:`TS_NAIVE` (nanoseconds since 1970-01-01 of the wall-clock time),
    :data:`TS_OFFSET` (the text carries a UTC offset: nanoseconds of the UTC instant),
    :data:`TS_BAD` (not an ISO 8601 date-time, or outside 1678..2261) or :data:`TS_EMPTY`.
    """
    codes, uniques = pd.factorize(np.asarray(values, dtype=object), use_na_sentinel=True)
    u_ns, u_kind = parse_timestamp_texts(uniques)
    return u_ns[codes], u_kind[codes]


def parse_timestamp_texts(texts) -> tuple[np.ndarray, np.ndarray]:
    """:func:`parse_timestamps` of distinct texts; one extra last slot (missing: :data:`TS_EMPTY`) so that
    the results can be indexed with codes where -1 means missing."""
    u_ns = np.zeros(len(texts) + 1, dtype=np.int64)
    u_kind = np.full(len(texts) + 1, TS_BAD, dtype=np.int8)
    u_kind[-1] = TS_EMPTY
    for i, s in enumerate(texts):
        s = str(s).strip()
        if not s:
            u_kind[i] = TS_EMPTY
            continue
        try:
            d = datetime.fromisoformat(s)
        except ValueError:
            continue
        kind = TS_NAIVE
        if d.tzinfo is not None:
            d = d.astimezone(UTC).replace(tzinfo=None)
            kind = TS_OFFSET
        if not _NS_MIN_YEAR <= d.year <= _NS_MAX_YEAR:
            continue
        td = d - _EPOCH
        u_ns[i] = ((td.days * 86400 + td.seconds) * 1_000_000 + td.microseconds) * 1000
        u_kind[i] = kind
    return u_ns, u_kind


def clean_meter_ids(values) -> tuple[np.ndarray, np.ndarray]:
    """Meter ids -> (int codes, names): names stripped of blanks, in order of first appearance;
    code -1 for a missing or blank id."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=object), use_na_sentinel=True)
    return clean_coded_ids(codes, uniques)


def clean_coded_ids(codes: np.ndarray, uniques) -> tuple[np.ndarray, np.ndarray]:
    """:func:`clean_meter_ids` of already coded ids (``uniques[codes]``, -1 = missing); the names keep
    the order of ``uniques`` (blank ones dropped, duplicates after stripping merged)."""
    stripped = pd.Index(uniques, dtype=object).astype(str).str.strip()
    c2, names = pd.factorize(stripped)
    lut = np.append(c2, -1).astype(np.int64)
    codes = lut[np.asarray(codes, dtype=np.int64)]
    names = np.asarray(names, dtype=object)
    blank = np.flatnonzero(names == "")
    if len(blank):  # a blank id is missing; renumber the others
        keep = names != ""
        remap = np.full(len(names) + 1, -1, dtype=np.int64)
        remap[np.flatnonzero(keep)] = np.arange(keep.sum())
        codes = remap[codes]
        names = names[keep]
    return codes, names


def modal_step(codes: np.ndarray, d: np.ndarray) -> dict[int, int]:
    """Per meter code, the most frequent positive difference (ties: the smallest)."""
    if not len(d):
        return {}
    vc = pd.DataFrame({"c": codes, "d": d}).value_counts(sort=False).reset_index(name="n")
    vc = vc.sort_values(["c", "n", "d"], ascending=[True, False, True], kind="stable")
    first = vc.drop_duplicates("c")
    return dict(zip(first["c"].to_numpy().tolist(), first["d"].to_numpy().tolist()))


def step_text(ns: int) -> str:
    """A step in nanoseconds as '15 min', '1 h 30 min', '45 s'."""
    td = pd.Timedelta(int(ns), "ns")
    if td % pd.Timedelta(minutes=1) == pd.Timedelta(0):
        minutes = int(td / pd.Timedelta(minutes=1))
        return f"{minutes} min"
    return str(td)


def validate_readings(
    df: pd.DataFrame,
    source: str,
    *,
    allow_negative: bool = False,
    allow_nan: bool = False,
    min_samples: int = 2,
    row_offset: int = 2,
    plausible_kw: tuple[float, float] | None = None,
    check_only: bool = False,
) -> pd.DataFrame | None:
    """Check and normalise a readings table; return it sorted by meter and time (``check_only``: None).

    ``source`` names where the data came from (a file path) and appears in every error.
    ``row_offset`` converts the frame's positional index to the row numbers a user sees
    (2 for a CSV with a header line: the first data row is line 2). ``plausible_kw = (lo, hi)``
    rejects finite values outside ``[lo, hi]`` kW.

    Timestamps given as text must be ISO 8601 *without* a UTC offset (naive local time);
    tz-aware ``datetime64`` columns are taken as wall-clock time of their own zone.

    Raises :class:`MeterDataError` naming the source, the field, the offending rows and values
    (all kinds of row problems at once, a few rows each).
    """
    missing = [c for c in READING_COLUMNS if c not in df.columns]
    if missing:
        raise MeterDataError(f"{source}: missing column(s) {missing}; found {list(df.columns)} ({SEE_README})")
    n = len(df)
    problems = Problems(source)

    raw_ids = df["meter_id"].to_numpy(dtype=object)
    codes, names = clean_meter_ids(raw_ids)
    bad = codes < 0
    problems.add("id", "field 'meter_id' is empty", np.flatnonzero(bad) + row_offset, raw_ids[bad])

    col = df["timestamp"]
    if pd.api.types.is_datetime64_any_dtype(col):
        if getattr(col.dt, "tz", None) is not None:
            col = col.dt.tz_localize(None)  # wall-clock time of the column's own zone
        ts = col.to_numpy(dtype="datetime64[ns]").view(np.int64)
        kind = np.where(col.isna().to_numpy(), TS_EMPTY, TS_NAIVE).astype(np.int8)
    else:
        ts, kind = parse_timestamps(col.to_numpy(dtype=object))
    for k, text, hint in (
        (TS_EMPTY, "field 'timestamp' is empty", ""),
        (TS_BAD, "field 'timestamp' is not an ISO 8601 date-time", "write e.g. 2020-03-02 00:30:00"),
        (
            TS_OFFSET,
            "field 'timestamp' carries a UTC offset",
            (
                "canonical readings are naive local time; a "
                "bring-your-own CSV with offsets needs data.experiments.<experiment>.timezone"
            ),
        ),
    ):
        m = np.flatnonzero(kind == k)
        problems.add(
            f"ts{k}", text, m + row_offset, col.iloc[m[:_MAX_ROWS_SHOWN]].to_numpy(dtype=object), hint, total=len(m)
        )

    raw = df["kw"]
    if pd.api.types.is_numeric_dtype(raw) and not pd.api.types.is_bool_dtype(raw):
        kw = raw.to_numpy(dtype="float64")
    else:
        kw = pd.to_numeric(raw, errors="coerce").to_numpy(dtype="float64")
        cand = np.flatnonzero(np.isnan(kw))
        if len(cand):
            rv = raw.to_numpy(dtype=object)[cand]
            text_nan = np.array(
                [v is None or (isinstance(v, float) and np.isnan(v)) or str(v).strip().lower() == "nan" for v in rv],
                dtype=bool,
            )
            nn = cand[~text_nan]
            problems.add("kw-num", "field 'kw' is not numeric", nn + row_offset, rv[~text_nan])
            kw[nn] = 0.0  # reported; keeps the checks below quiet for these rows
    nan = np.isnan(kw)
    if not allow_nan:
        problems.add("kw-nan", "field 'kw' is missing (NaN)", np.flatnonzero(nan) + row_offset, kw[nan])
    inf = np.isinf(kw)
    problems.add("kw-inf", "field 'kw' is infinite", np.flatnonzero(inf) + row_offset, kw[inf])
    if not allow_negative:
        neg = kw < 0
        problems.add(
            "kw-neg",
            "field 'kw' is negative",
            np.flatnonzero(neg) + row_offset,
            kw[neg],
            "negative loads are not allowed here",
        )
    if plausible_kw is not None:
        lo, hi = plausible_kw
        out = np.isfinite(kw) & ((kw < lo) | (kw > hi))
        problems.add(
            "kw-range",
            f"field 'kw' is outside the plausible range [{lo:g}, {hi:g}] kW",
            np.flatnonzero(out) + row_offset,
            kw[out],
            "is the unit W or Wh instead of kW? (the range is data.plausible_kw)",
        )
    problems.raise_if_any()

    # per meter in file order: times must increase (then there are no duplicates either)
    grouped = bool((codes[1:] >= codes[:-1]).all())
    if grouped:
        by_meter, c, t = np.arange(n), codes, ts
    else:
        by_meter = np.argsort(codes, kind="stable")
        c, t = codes[by_meter], ts[by_meter]
    same = c[1:] == c[:-1]
    d = t[1:] - t[:-1]
    if (same & (d <= 0)).any():
        # duplicates anywhere (sorted by meter, time, then position: the later row is the duplicate)
        by_time = np.lexsort((ts, codes))
        cc, tt = codes[by_time], ts[by_time]
        dup = np.flatnonzero((cc[1:] == cc[:-1]) & (tt[1:] == tt[:-1]))
        if len(dup):
            first, later = by_time[dup], by_time[dup + 1]
            order = np.argsort(later, kind="stable")
            problems.add(
                "dup",
                "duplicate (meter_id, timestamp)",
                later[order] + row_offset,
                [
                    f"{names[codes[j]]}, {pd.Timestamp(ts[j])} as in row {i + row_offset}"
                    for i, j in zip(first[order][:_MAX_ROWS_SHOWN], later[order][:_MAX_ROWS_SHOWN])
                ],
            )
            problems.raise_if_any()
        back = np.flatnonzero(same & (d <= 0))
        rows = np.sort(by_meter[back + 1])
        problems.add(
            "order",
            "timestamps are not in increasing order per meter",
            rows + row_offset,
            [f"{names[codes[j]]}, {pd.Timestamp(ts[j])}" for j in rows[:_MAX_ROWS_SHOWN]],
        )
        problems.raise_if_any()

    counts = np.bincount(codes, minlength=len(names))
    short = np.flatnonzero(counts < min_samples)
    if len(short):
        listed = ", ".join(f"{names[k]!r} ({counts[k]})" for k in short[:_MAX_ROWS_SHOWN])
        more = f" and {len(short) - _MAX_ROWS_SHOWN} more" if len(short) > _MAX_ROWS_SHOWN else ""
        raise MeterDataError(
            f"{source}: meter(s) with too few readings (at least {min_samples} are needed): "
            f"{listed}{more} ({SEE_README})"
        )

    # regular sampling: every difference equals the meter's usual step
    cs, ds = c[1:][same], d[same]
    if len(ds) and (ds == ds[0]).all():
        mode = {}  # one step for every meter: regular
    else:
        mode = modal_step(cs, ds)
    if mode:
        usual = np.array([mode.get(k, 0) for k in range(len(names))], dtype=np.int64)
        irregular = np.flatnonzero(same)[ds != usual[cs]]
        if len(irregular):
            rows = by_meter[irregular + 1]
            bad_meters = list(dict.fromkeys(codes[np.sort(rows)].tolist()))
            lines = []
            for k in bad_meters[:_MAX_ROWS_SHOWN]:
                r = np.sort(rows[codes[rows] == k])
                lines.append(
                    f"{source}: meter {names[k]!r} is sampled irregularly: the usual step is "
                    f"{step_text(usual[k])}, but row(s) {format_cells(r + row_offset, ts[r].astype('datetime64[ns]'))} "
                    f"break it"
                )
            more = (
                f"\n{source}: and {len(bad_meters) - _MAX_ROWS_SHOWN} more meter(s)"
                if len(bad_meters) > _MAX_ROWS_SHOWN
                else ""
            )
            raise MeterDataError(
                "\n".join(lines) + more + f" (canonical readings are complete and regular; {SEE_README})"
            )

    if check_only:
        return None
    rank = np.empty(len(names), dtype=np.int64)
    rank[np.argsort(names, kind="stable")] = np.arange(len(names))
    rc = rank[codes]
    if grouped and (rc[1:] >= rc[:-1]).all():
        # already sorted by meter id, and by time within each meter (checked above)
        return pd.DataFrame({"meter_id": names[codes], "timestamp": ts.view("datetime64[ns]"), "kw": kw})
    order = np.lexsort((ts, rc))
    return pd.DataFrame(
        {
            "meter_id": names[codes[order]],
            "timestamp": ts[order].view("datetime64[ns]"),
            "kw": kw[order],
        }
    )[READING_COLUMNS]


def check_readings(df: pd.DataFrame, source: str, **kw) -> None:
    """The checks of :func:`validate_readings` without building the normalised table."""
    validate_readings(df, source, check_only=True, **kw)


def _csv_fields(values: np.ndarray, fmt) -> list[str]:
    """CSV fields of ``values``: each distinct value formatted by ``fmt`` (array of uniques -> texts)
    and quoted as :mod:`csv` does (QUOTE_MINIMAL), once."""
    codes, uniques = pd.factorize(values)
    texts = fmt(np.asarray(uniques))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    quoted = []
    for t in texts:
        t = str(t)
        if any(ch in t for ch in ',"\r\n') or t.strip() != t or t == "":
            buf.seek(0)
            buf.truncate()
            w.writerow([t, ""])
            t = buf.getvalue()[:-2]  # the field as the csv module writes it (drop ',' + line end)
        quoted.append(t)
    return np.asarray(quoted, dtype=object)[codes].tolist()


def write_readings(path: str | os.PathLike, parts: Iterable[pd.DataFrame], chunk_rows: int = 500_000) -> None:
    """Write a readings table given in row blocks ``parts`` (each with :data:`READING_COLUMNS`) atomically.

    The bytes of :meth:`MeterData.save` of the concatenated table, whatever the blocks (each row is
    formatted on its own): ``timestamp`` as ``%Y-%m-%dT%H:%M:%S``, ``kw`` in :data:`dpgrid.core.io.FLOAT_FORMAT`,
    fields quoted by the csv module as pandas does, each distinct value of a piece of at most ``chunk_rows``
    rows formatted once. Only one block is in memory at a time (synthetic data of any size:
    :func:`dpgrid.data.sources.write_experiment_data`). An exception raised by ``parts`` leaves ``path``
    untouched.
    """
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(READING_COLUMNS)
        for block in parts:
            for a in range(0, len(block), chunk_rows):
                part = block.iloc[a : a + chunk_rows]
                ids = _csv_fields(part["meter_id"].to_numpy(dtype=object), lambda v: v)
                ts = _csv_fields(
                    part["timestamp"].to_numpy(dtype="datetime64[ns]").view(np.int64),
                    lambda u: np.datetime_as_string(u.view("datetime64[ns]"), unit="s").tolist(),
                )
                kw = _csv_fields(
                    part["kw"].to_numpy(dtype="float64").view(np.int64),
                    lambda u: ["" if np.isnan(v) else FLOAT_FORMAT % v for v in u.view("float64")],
                )
                fh.write("\n".join(map(",".join, zip(ids, ts, kw))))
                fh.write("\n")


@dataclass
class MeterData:
    """Validated readings plus per-meter metadata."""

    readings: pd.DataFrame
    meters: pd.DataFrame
    source: str

    def __post_init__(self) -> None:
        missing = [c for c in METER_COLUMNS if c not in self.meters.columns]
        if missing:
            raise MeterDataError(f"{self.source}: meter table lacks column(s) {missing}")
        unknown = sorted(set(pd.unique(self.readings["meter_id"])) - set(self.meters["meter_id"]))
        if unknown:
            raise MeterDataError(f"{self.source}: meter(s) {unknown[:5]} have readings but no metadata")

    @property
    def step(self) -> pd.Timedelta:
        """The sampling step (common to all meters, checked)."""
        steps = set()
        for _, g in self.readings.groupby("meter_id", sort=False):
            if len(g) > 1:
                steps.add(g["timestamp"].iloc[1] - g["timestamp"].iloc[0])
        if len(steps) != 1:
            raise MeterDataError(f"{self.source}: meters have different sampling steps {sorted(steps)}")
        return steps.pop()

    def wide(self) -> pd.DataFrame:
        """Readings as a (timestamp x meter_id) frame, meters in metadata order."""
        w = self.readings.pivot(index="timestamp", columns="meter_id", values="kw")
        return w[[m for m in self.meters["meter_id"] if m in w.columns]]

    def select(self, meter_ids) -> MeterData:
        meter_ids = list(meter_ids)
        r = self.readings[self.readings["meter_id"].isin(meter_ids)].reset_index(drop=True)
        m = self.meters.set_index("meter_id").loc[meter_ids].reset_index()
        return MeterData(r, m, self.source)

    def save(self, readings_path: str | os.PathLike, meters_path: str | os.PathLike, chunk_rows: int = 500_000) -> None:
        """Write both tables atomically (canonical CSV).

        The bytes are those of :func:`dpgrid.core.io.write_table` of the readings with ``timestamp`` formatted
        ``%Y-%m-%dT%H:%M:%S`` (``kw`` in :data:`dpgrid.core.io.FLOAT_FORMAT`, fields quoted by the csv module as
        pandas does; a test compares them), written in chunks of ``chunk_rows`` rows with each distinct
        value formatted once, so that a big table is written fast and without a copy in memory.
        """
        r = self.readings
        write_readings(readings_path, [r], chunk_rows)
        write_table(self.meters, meters_path)

    @classmethod
    def load(cls, readings_path: str | os.PathLike, meters_path: str | os.PathLike, **validate_kw) -> MeterData:
        """Read tables written by :meth:`save` and validate them (bring-your-own files: use
        :func:`dpgrid.data.loaders.load_csv`, which applies the time-zone and gap rules)."""
        readings_path = Path(readings_path)
        # meter ids verbatim (``NA``, ``None``, ``#N/A`` are names, as for the loaders); kw empty = missing
        r = read_csv_keeping_ids(readings_path, dtype={"meter_id": str, "kw": object, "timestamp": object})
        r = validate_readings(r, str(readings_path), **validate_kw)
        m = read_csv_keeping_ids(meters_path, dtype={"meter_id": str, "customer_class": str})
        return cls(r, m, str(readings_path))


#: Mean load (kW) above which a *residential* meter is implausible: a home averaging 20 kW would use 480 kWh a
#: day, about 50 times a typical European or US household (8-30 kWh). Readings in W of a home (a few hundred
#: "kW", all inside ``data.plausible_kw``) are caught by this instead.
RESIDENTIAL_MEAN_KW_MAX = 20.0


def constant_meter_problem(values, meter_id, source: str) -> str:
    """Why a meter's series (kW) cannot feed a spectral or shape-based analysis: it is constant ('' if not).

    A constant series has no power away from frequency 0: spdp's adjacency parameter B_SpDP (largest PSD
    difference between windows, Parker-Hale-Barooah eq. 12) is then 0 and its calibration fails
    ("adjacency parameter B must be positive"); an all-zero series also has no log-spectrum ("math domain
    error"). The message names the meter, its value and the cause."""
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    if not len(v) or v.min() != v.max():
        return ""
    what = (
        "every reading is 0 kW (an all-zero meter: disconnected, or a placeholder)"
        if v[0] == 0
        else (f"every reading is {v[0]:g} kW")
    )
    return (
        f"{source}: meter {str(meter_id)!r} is constant ({what}, {len(v)} readings): its load has no variation, "
        f"so its spectrum is zero away from frequency 0 and spdp's adjacency parameter B_SpDP would be 0; "
        f"choose another meter (spdp.meter_id) or check the export"
    )


def meter_warnings(md: MeterData) -> list[str]:
    """Per-meter findings that are legal but suspicious, each naming the meter: constant series
    (:func:`constant_meter_problem`) and residential meters whose mean load exceeds
    :data:`RESIDENTIAL_MEAN_KW_MAX` (readings in W rather than kW)."""
    out = []
    stats = md.readings.groupby("meter_id", sort=False)["kw"].agg(["min", "max", "mean"])
    classes = dict(zip(md.meters["meter_id"], md.meters["customer_class"]))
    for meter, row in stats.iterrows():
        if row["min"] == row["max"]:
            out.append(
                constant_meter_problem(md.readings.loc[md.readings["meter_id"] == meter, "kw"], meter, md.source)
            )
        elif str(classes.get(meter, "")).strip().lower() == "residential" and row["mean"] > RESIDENTIAL_MEAN_KW_MAX:
            out.append(
                f"{md.source}: meter {str(meter)!r} (residential) averages {row['mean']:.4g} kW (up to "
                f"{row['max']:.4g} kW): implausible for a home (over {RESIDENTIAL_MEAN_KW_MAX:g} kW, "
                f"{24 * RESIDENTIAL_MEAN_KW_MAX:g} kWh a day); is the unit W? kw must be kW (divide W by 1000)"
            )
    return out


def zone_or_error(name: str | None, where: str):
    """A :class:`zoneinfo.ZoneInfo` for an IANA time-zone name (``None`` stays ``None``)."""
    if name is None:
        return None
    import zoneinfo

    try:
        return zoneinfo.ZoneInfo(str(name))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as e:
        raise MeterDataError(
            f"{where}: unknown time zone {name!r}; use an IANA name such as 'Europe/Paris' or 'UTC' ({SEE_README})"
        ) from e


def resolution_note(step: pd.Timedelta, paper_minutes: float, what: str, changes) -> str:
    """Empty when the data's ``step`` is the paper's; else a sentence saying what the other step changes.

    ``changes(step_minutes)`` returns the consequences at the data's step (e.g. "the 12-step horizon
    covers 6 h, not 3 h"). Experiments write the note into their log and result tables, so a run at
    another resolution never changes a result's meaning silently.
    """
    minutes = step / pd.Timedelta(minutes=1)
    if abs(minutes - paper_minutes) < 1e-9:
        return ""
    return f"{what} data at {minutes:g}-minute steps, the paper's at {paper_minutes:g}-minute steps: {changes(minutes)}"


def spec_value(spec: dict, key: str, name: str):
    """``spec[key]``, or a :class:`MeterDataError` naming ``data.experiments.<name>`` and the source."""
    if key not in spec:
        raise MeterDataError(f"config: data.experiments.{name}: missing key {key!r} for source {spec.get('source')!r}")
    return spec[key]


def spec_window(spec: dict, name: str) -> tuple[str, int, int]:
    """``(start, days, step_minutes)`` of an experiment entry ``spec`` (``data.experiments.<name>``), each
    missing key reported by :func:`spec_value`."""
    return (
        spec_value(spec, "start", name),
        int(spec_value(spec, "days", name)),
        int(spec_value(spec, "step_minutes", name)),
    )
