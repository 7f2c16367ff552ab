"""The checks of a bring-your-own readings file as a whole, after its rows are read (:mod:`dpgrid.data.csvfile`):
duplicate (meter, time) rows (the hour repeated when daylight saving time ends is averaged, with a time zone,
or named, without), the file's step (one for every meter, dividing a day) and its grid. The duplicate report
and the modal step are those of :func:`dpgrid.data.checks.validate_readings`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpgrid.data.checks import DUPLICATE, duplicate_value, modal_step, step_text
from dpgrid.data.csv_format import file_error, localize_flags
from dpgrid.data.problems import MAX_ROWS_SHOWN, Problems

_DAY_NS = 86_400 * 10**9
_HOUR_NS = 3_600 * 10**9


def fold_repeated_hour(path, code, ts, kw, row, inst, names, zone: str | None, key: str):
    """Duplicate (meter, local time) rows: an error naming them, except in the hour repeated when daylight saving
    time ends (two instants ``inst`` on one local time, with a time zone), whose readings are averaged.

    The per-reading arrays are sorted by meter, then local time; returns ``(code, ts, kw, row, folded_ts)``, the last
    the local times of the readings averaged into another one (empty when none).
    """
    # duplicates; with a time zone, two instants on one local time are the repeated DST hour: averaged
    eq = (code[1:] == code[:-1]) & (ts[1:] == ts[:-1])
    folded_ts = ts[:0]
    if eq.any():
        dup = eq if inst is None else eq & (inst[1:] == inst[:-1])
        if dup.any():
            later = np.flatnonzero(dup) + 1
            j = np.argsort(row[later], kind="stable")
            later = later[j]
            vals = [duplicate_value(names[code[i]], ts[i], row[i - 1]) for i in later[:MAX_ROWS_SHOWN]]
            problems = Problems(str(path))
            problems.add("dup", DUPLICATE, row[later], vals, _dst_duplicate_hint(ts[later], zone, key))
            problems.raise_if_any()
        fold = np.flatnonzero(eq) + 1
        folded_ts = ts[fold]
        keep = np.ones(len(ts), dtype=bool)
        keep[fold] = False
        starts = np.flatnonzero(keep)
        present = ~np.isnan(kw)
        sums = np.add.reduceat(np.where(present, kw, 0.0), starts)
        cnt = np.add.reduceat(present.astype(np.int64), starts)
        with np.errstate(invalid="ignore", divide="ignore"):
            kw = np.where(cnt > 0, sums / np.maximum(cnt, 1), np.nan)
        code, ts, row = code[starts], ts[starts], row[starts]

    return code, ts, kw, row, folded_ts


def file_step(path, code, ts, names, first_rows) -> int:
    """The file's step (ns): the most frequent difference between consecutive readings of a meter (sorted by meter,
    then time); an error when every meter has a single reading, when a meter has another step, or when the step
    does not divide a day."""
    # the step: most frequent difference between consecutive readings of a meter
    same = code[1:] == code[:-1]
    d = (ts[1:] - ts[:-1])[same]
    if not len(d):
        raise file_error(
            path,
            f"every meter has a single reading ({len(names)} meter(s)): the sampling step cannot be "
            f"inferred; give each meter its readings at one regular step",
        )
    if (d == d[0]).all():
        step = int(d[0])
    else:
        vals, counts = np.unique(d, return_counts=True)
        step = int(vals[np.argmax(counts)])
        dc = code[1:][same]
        n_all = np.bincount(dc, minlength=len(names))
        n_step = np.bincount(dc[d == step], minlength=len(names))
        odd = np.flatnonzero(2 * n_step < n_all)
        if len(odd):
            sub = np.isin(dc, odd)
            own = modal_step(dc[sub], d[sub])
            odd = [k for k in odd if own.get(int(k), step) != step]
            if odd:
                listed = ", ".join(
                    f"{names[k]!r} (every {step_text(own[int(k)])}, first row {first_rows[k]})"
                    for k in odd[:MAX_ROWS_SHOWN]
                )
                more = f" and {len(odd) - MAX_ROWS_SHOWN} more" if len(odd) > MAX_ROWS_SHOWN else ""
                raise file_error(
                    path,
                    f"meters are sampled at different steps: most readings are {step_text(step)} "
                    f"apart, but meter(s) {listed}{more} are not; give every meter the same step",
                )
    if _DAY_NS % step:
        raise file_error(
            path,
            f"the file's step ({step_text(step)}, the most frequent difference between consecutive "
            f"readings of a meter) does not divide a day",
        )
    return step


def check_grid(path, ts, row, step: int, zone: str | None) -> None:
    """Every timestamp (local, int64 ns) a multiple of ``step`` after midnight; an error naming the rows off it."""
    off = np.flatnonzero(ts % step)
    if len(off):
        j = np.argsort(row[off], kind="stable")
        off = off[j]
        problems = Problems(str(path))
        problems.add(
            "grid",
            f"field 'timestamp' is off the {step_text(step)} grid" + (f" (local time in {zone})" if zone else ""),
            row[off],
            ts[off].view("datetime64[ns]"),
            f"timestamps must be multiples of the step ({step_text(step)}) after midnight, each marking the "
            f"START of its interval; if yours mark the end or the middle of the interval, shift them "
            f"(e.g. 00:30 -> 00:00)",
        )
        problems.raise_if_any()


def _dst_duplicate_hint(ts: np.ndarray, zone: str | None, key: str) -> str:
    """Say 'daylight saving time' when the duplicated local times look like the repeated hour."""
    hours = np.unique(ts // _HOUR_NS)
    if zone is not None:
        _, ambiguous = localize_flags(ts, zone)
        if ambiguous.all():
            h = pd.Timestamp(int(hours[0]) * _HOUR_NS)
            return (
                f"these are in the hour from {h} that {zone} repeats when daylight saving time ends: naive "
                f"timestamps cannot tell its two occurrences apart; export timestamps with UTC offsets"
            )
        return "each (meter_id, timestamp) may appear once"
    if len(hours) <= 2 and (hours.max() - hours.min()) <= 1:
        h = pd.Timestamp(int(hours.min()) * _HOUR_NS)
        zones = zones_repeating(ts)
        if zones:
            shown = ", ".join(zones[:3]) + (f" and {len(zones) - 3} more zones" if len(zones) > 3 else "")
            return (
                f"all of them in the hour from {h}, which {shown} repeat when daylight saving time ends: naive "
                f"timestamps cannot tell its two occurrences apart; export timestamps in UTC or with UTC offsets "
                f"and set {key}.timezone"
            )
    return "each (meter_id, timestamp) may appear once"


def zones_repeating(ts: np.ndarray) -> list[str]:
    """IANA zones (``Region/City`` names; Europe, America, Australia, Pacific first, then alphabetically) in which
    every naive wall-clock time of ``ts`` (int64 ns) lies in the hour repeated when daylight saving time ends
    (its first occurrence has the larger UTC offset)."""
    import zoneinfo
    from datetime import datetime

    times = [datetime.fromisoformat(str(pd.Timestamp(int(t)))) for t in np.unique(ts)]
    out = []
    regions = ["Europe", "America", "Australia", "Pacific"]

    def order(name: str):
        region = name.split("/")[0]
        return (regions.index(region) if region in regions else len(regions), name)

    for name in sorted(zoneinfo.available_timezones(), key=order):
        if "/" not in name or name.startswith(("Etc/", "SystemV/")):
            continue
        z = zoneinfo.ZoneInfo(name)
        if all(t.replace(tzinfo=z, fold=0).utcoffset() > t.replace(tzinfo=z, fold=1).utcoffset() for t in times):
            out.append(name)
    return out
