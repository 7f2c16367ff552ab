"""The checks of meter readings, each written once: :func:`validate_readings` (a readings table: ids,
timestamps, values, duplicates, order, regular sampling) and the pieces the file readers share with it
(the plausible range of ``kw``, the duplicate report, the modal step), used by the bring-your-own CSV reader
(:mod:`dpgrid.data.csvfile`, :mod:`dpgrid.data.csv_checks`) and the UCI loaders
(:mod:`dpgrid.data.uci_household`, :mod:`dpgrid.data.uci_eld`).

Errors are :class:`dpgrid.data.problems.MeterDataError` naming the source (file), the field, the offending
rows and their values (all kinds of row problems at once, a few rows each).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpgrid.data.fields import (
    READING_COLUMNS,
    TS_BAD,
    TS_EMPTY,
    TS_NAIVE,
    TS_OFFSET,
    clean_meter_ids,
    parse_timestamps,
)
from dpgrid.data.problems import MAX_ROWS_SHOWN, SEE_README, MeterDataError, Problems, format_cells

#: Default physical range of a meter's average power, kW (config ``data.plausible_kw``).
DEFAULT_PLAUSIBLE_KW = (-50.0, 500.0)
#: The text of a duplicate-row problem (the values: :func:`duplicate_value`).
DUPLICATE = "duplicate (meter_id, timestamp)"


def plausible_range(plausible_kw) -> tuple[float, float]:
    """``(lo, hi)`` of config ``data.plausible_kw`` as floats; an error unless ``lo < hi``."""
    lo, hi = (float(v) for v in plausible_kw)
    if not lo < hi:
        raise MeterDataError(f"config: data.plausible_kw must be [low, high] with low < high, got {list(plausible_kw)}")
    return lo, hi


def implausible_kw(kw: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Mask of the values of ``kw`` (kW, any shape) outside ``[lo, hi]``, infinite ones included; NaN (a missing
    reading) is not implausible."""
    kw = np.asarray(kw, dtype=float)
    return ~np.isnan(kw) & ~((kw >= lo) & (kw <= hi))


def outside_range(lo: float, hi: float) -> str:
    """The words of a plausible-range problem, after the field's name."""
    return f"is outside the plausible range [{lo:g}, {hi:g}] kW"


def duplicate_value(meter, ts_ns, first_row) -> str:
    """A duplicate row shown in a message: its meter, its time (int64 ns) and the row it repeats."""
    return f"{meter}, {pd.Timestamp(int(ts_ns))} as in row {first_row}"


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


def _checked_fields(
    df: pd.DataFrame,
    problems: Problems,
    *,
    allow_negative: bool,
    allow_nan: bool,
    row_offset: int,
    plausible_kw: tuple[float, float] | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Row checks of :func:`validate_readings` (meter ids, timestamps, kW values), all problems at once: raises
    through ``problems``; returns (meter codes, meter names, timestamps in ns, kW)."""
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
            f"ts{k}", text, m + row_offset, col.iloc[m[:MAX_ROWS_SHOWN]].to_numpy(dtype=object), hint, total=len(m)
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
        out = np.isfinite(kw) & implausible_kw(kw, lo, hi)
        problems.add(
            "kw-range",
            f"field 'kw' {outside_range(lo, hi)}",
            np.flatnonzero(out) + row_offset,
            kw[out],
            "is the unit W or Wh instead of kW? (the range is data.plausible_kw)",
        )
    problems.raise_if_any()

    return codes, names, ts, kw


def _checked_order(
    codes: np.ndarray, names: np.ndarray, ts: np.ndarray, problems: Problems, row_offset: int
) -> tuple[bool, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per meter, timestamps strictly increase (no duplicates, none out of order): raises through ``problems``.
    Returns (rows grouped by meter in the file, the rows in meter order, their codes, whether each row has the
    meter of the one before, the time steps between them)."""
    n = codes.size
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
                DUPLICATE,
                later[order] + row_offset,
                [
                    duplicate_value(names[codes[j]], ts[j], i + row_offset)
                    for i, j in zip(first[order][:MAX_ROWS_SHOWN], later[order][:MAX_ROWS_SHOWN])
                ],
            )
            problems.raise_if_any()
        back = np.flatnonzero(same & (d <= 0))
        rows = np.sort(by_meter[back + 1])
        problems.add(
            "order",
            "timestamps are not in increasing order per meter",
            rows + row_offset,
            [f"{names[codes[j]]}, {pd.Timestamp(ts[j])}" for j in rows[:MAX_ROWS_SHOWN]],
        )
        problems.raise_if_any()

    return grouped, by_meter, c, same, d


def _check_regular(
    source: str,
    names: np.ndarray,
    codes: np.ndarray,
    ts: np.ndarray,
    by_meter: np.ndarray,
    c: np.ndarray,
    same: np.ndarray,
    d: np.ndarray,
    row_offset: int,
) -> None:
    """Every time step of a meter equals its usual step (MeterDataError naming the meters and rows otherwise)."""
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
            for k in bad_meters[:MAX_ROWS_SHOWN]:
                r = np.sort(rows[codes[rows] == k])
                lines.append(
                    f"{source}: meter {names[k]!r} is sampled irregularly: the usual step is "
                    f"{step_text(usual[k])}, but row(s) {format_cells(r + row_offset, ts[r].astype('datetime64[ns]'))} "
                    f"break it"
                )
            more = (
                f"\n{source}: and {len(bad_meters) - MAX_ROWS_SHOWN} more meter(s)"
                if len(bad_meters) > MAX_ROWS_SHOWN
                else ""
            )
            raise MeterDataError(
                "\n".join(lines) + more + f" (canonical readings are complete and regular; {SEE_README})"
            )


def _normalised(names: np.ndarray, codes: np.ndarray, ts: np.ndarray, kw: np.ndarray, grouped: bool) -> pd.DataFrame:
    """The checked readings sorted by meter id and time."""
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
    problems = Problems(source)

    codes, names, ts, kw = _checked_fields(
        df,
        problems,
        allow_negative=allow_negative,
        allow_nan=allow_nan,
        row_offset=row_offset,
        plausible_kw=plausible_kw,
    )
    grouped, by_meter, c, same, d = _checked_order(codes, names, ts, problems, row_offset)
    counts = np.bincount(codes, minlength=len(names))
    short = np.flatnonzero(counts < min_samples)
    if len(short):
        listed = ", ".join(f"{names[k]!r} ({counts[k]})" for k in short[:MAX_ROWS_SHOWN])
        more = f" and {len(short) - MAX_ROWS_SHOWN} more" if len(short) > MAX_ROWS_SHOWN else ""
        raise MeterDataError(
            f"{source}: meter(s) with too few readings (at least {min_samples} are needed): "
            f"{listed}{more} ({SEE_README})"
        )

    _check_regular(source, names, codes, ts, by_meter, c, same, d, row_offset)
    if check_only:
        return None
    return _normalised(names, codes, ts, kw, grouped)


def check_readings(df: pd.DataFrame, source: str, **kw) -> None:
    """The checks of :func:`validate_readings` without building the normalised table."""
    validate_readings(df, source, check_only=True, **kw)
