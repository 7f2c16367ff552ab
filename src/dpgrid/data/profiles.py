"""Daily load profiles: one 25-point profile per meter (dpkmeans paper, Sec. V: d = 25 hourly values).

Ravi et al., *Differentially Private K-means Clustering Applied to Meter Data Analysis and
Synthesis* (IEEE TSG 2022) cluster each house's average daily profile from midnight to the next
midnight inclusive (25 hourly values); the AC-OPF study of Figs. 12-13 uses the same profiles.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Column names of the 25 hourly values of a daily profile (h00 = midnight ... h24 = next midnight).
PROFILE_HOURS = [f"h{h:02d}" for h in range(25)]


def daily_profiles(md) -> pd.DataFrame:
    """One d = 25 profile per meter: the mean over days of the hourly load from midnight to midnight.

    Readings are averaged to hourly means (if finer); for day t the window is hours 0..23 of day t
    plus hour 0 of day t+1 (the closing midnight), so only days with a following day count
    (D - 1 windows for D days).  Returns columns meter_id, customer_class, h00..h24.
    """
    r = md.readings.copy()
    r["hour"] = r["timestamp"].dt.floor("h")
    hourly = r.groupby(["meter_id", "hour"], sort=False)["kw"].mean().unstack("meter_id")
    hourly = hourly[[m for m in md.meters["meter_id"] if m in hourly.columns]]
    start = hourly.index[0]
    if start != start.normalize():
        raise ValueError(f"{md.source}: field 'timestamp' must start at midnight for daily profiles, got {start}")
    days = len(hourly) // 24
    if days < 2:
        raise ValueError(f"{md.source}: need at least 2 full days for 25-point daily profiles, got {len(hourly)} hours")
    if hourly.iloc[: days * 24].isna().any().any():
        raise ValueError(f"{md.source}: field 'kw' has gaps after hourly averaging; fill them first")
    A = hourly.iloc[: days * 24].to_numpy().T.reshape(hourly.shape[1], days, 24)
    win = np.concatenate([A[:, :-1, :], A[:, 1:, :1]], axis=2)  # (meters, days-1, 25)
    prof = win.mean(1)
    cls = md.meters.set_index("meter_id")["customer_class"]
    out = pd.DataFrame(prof, columns=PROFILE_HOURS)
    out.insert(0, "customer_class", cls.loc[hourly.columns].to_numpy())
    out.insert(0, "meter_id", list(hourly.columns))
    return out


def daily_profiles_from_files(readings_path, meters_path, chunk_rows: int = 1_000_000) -> pd.DataFrame:
    """:func:`daily_profiles` of ``MeterData.load(readings_path, meters_path)``, reading the file in blocks.

    The readings file of rule ``meter_data`` holds each meter's rows together (:meth:`MeterData.save`), so
    the file is read ``chunk_rows`` rows at a time, the rows of the meters complete so far are validated
    (:func:`dpgrid.data.checks.validate_readings`, row numbers of the file) and turned into profiles, and
    the last, possibly incomplete, meter waits for the next chunk: memory is that of a chunk, whatever the
    number of meters, and each meter's profile is computed from its own rows exactly as in one pass.
    A meter whose rows are not together is an error.
    """
    from dpgrid.core.io import read_table
    from dpgrid.data.checks import validate_readings
    from dpgrid.data.meter import MeterData
    from dpgrid.data.problems import MeterDataError

    readings_path = str(readings_path)
    meters = read_table(meters_path, dtype={"meter_id": str, "customer_class": str})  # ids verbatim (NA, None...)
    dtype = {"meter_id": str, "kw": object, "timestamp": object}
    parts, done = [], set()
    carry = None  # rows of the last meter of the previous chunk (maybe incomplete)

    def flush(block: pd.DataFrame) -> None:
        ids = pd.unique(block["meter_id"])
        seen = done.intersection(ids)
        if seen:
            raise MeterDataError(
                f"{readings_path}: the rows of meter {sorted(seen)[0]!r} are not together; daily profiles read "
                "the file of rule meter_data (one block of rows per meter)"
            )
        done.update(ids)
        r = validate_readings(block.reset_index(drop=True), readings_path, row_offset=2 + int(block.index[0]))
        m = meters[meters["meter_id"].isin(set(ids))]
        parts.append(daily_profiles(MeterData(r, m, readings_path)))

    for chunk in read_table(readings_path, dtype=dtype, chunksize=chunk_rows):
        block = chunk if carry is None else pd.concat([carry, chunk])
        last = block["meter_id"].iloc[-1]
        tail = (block["meter_id"] == last).to_numpy()
        start_tail = len(tail) - int(np.argmin(tail[::-1])) if not tail.all() else 0
        carry = block.iloc[start_tail:]
        if start_tail:
            flush(block.iloc[:start_tail])
    if carry is not None and len(carry):
        flush(carry)
    if not parts:
        raise MeterDataError(f"{readings_path}: no readings")
    out = pd.concat(parts, ignore_index=True)
    order = [m for m in meters["meter_id"] if m in done]
    return out.set_index("meter_id").loc[order].reset_index()
