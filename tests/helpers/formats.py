"""Writers of small files in the real-data formats dpgrid reads (for tests only; never the real data).

* :func:`write_uci_household` - UCI "Individual household electric power consumption"
  (``household_power_consumption.txt``: ``;``-separated, dd/mm/yyyy, hh:mm:ss, ``?`` = missing minute);
* :func:`write_eld` - UCI "ElectricityLoadDiagrams20112014" (``LD2011_2014.txt``: quoted header,
  end-of-interval labels, ``;`` and decimal comma);
* :func:`write_readings_csv` / :func:`write_meters_csv` - the bring-your-own CSV pair;
* :func:`zip_bytes` / :func:`write_zip` - a zip holding one member (the UCI archives' layout);
* :func:`smooth_load` - plausible positive loads (daily cycle, weekly cycle, noise) to fill them.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

UCI_HEADER = (
    "Date;Time;Global_active_power;Global_reactive_power;Voltage;Global_intensity;"
    "Sub_metering_1;Sub_metering_2;Sub_metering_3"
)


def write_uci_household(path: Path, kw, start="2007-01-01 00:00:00") -> Path:
    """One line per minute from ``start``; ``kw`` holds strings (``"?"`` = missing) or numbers (NaN = missing)."""
    kw = np.asarray(kw, dtype=object)
    t = pd.date_range(start, periods=len(kw), freq="min")
    cells = np.array(
        ["?" if (isinstance(v, float) and np.isnan(v)) else (v if isinstance(v, str) else f"{v:.3f}") for v in kw],
        dtype=object,
    )
    dates = np.asarray(t.strftime("%d/%m/%Y"), dtype=object)
    times = np.asarray(t.strftime("%H:%M:%S"), dtype=object)
    lines = dates + ";" + times + ";" + cells + ";0.100;240.00;1.000;0.000;0.000;0.000"
    Path(path).write_text(UCI_HEADER + "\n" + "\n".join(lines) + "\n")
    return Path(path)


def write_eld(path: Path, start_label: str, values: np.ndarray, names=None) -> Path:
    """LD2011_2014 format: first label ``start_label`` (the END of the first 15-minute interval)."""
    values = np.asarray(values, dtype=float)
    names = names or [f"MT_{i + 1:03d}" for i in range(values.shape[1])]
    t = pd.date_range(start_label, periods=len(values), freq="15min")
    lines = [";".join(['""'] + [f'"{n}"' for n in names])]
    for ts, row in zip(t.strftime("%Y-%m-%d %H:%M:%S"), values):
        cells = [("0" if v == 0 else f"{v:.10g}".replace(".", ",")) for v in row]
        lines.append(";".join([f'"{ts}"'] + cells))
    Path(path).write_text("\n".join(lines) + "\n")
    return Path(path)


def write_readings_csv(path: Path, rows) -> Path:
    """Readings CSV ``meter_id,timestamp,kw`` from (meter_id, timestamp, kw) tuples or a frame."""
    df = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows), columns=["meter_id", "timestamp", "kw"])
    df.to_csv(path, index=False)
    return Path(path)


def write_meters_csv(path: Path, classes: dict) -> Path:
    """Meters CSV ``meter_id,customer_class`` from ``{meter_id: class}``."""
    Path(path).write_text("meter_id,customer_class\n" + "".join(f"{m},{c}\n" for m, c in classes.items()))
    return Path(path)


def zip_bytes(member: str, content: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(member, content)
    return buf.getvalue()


def write_zip(path: Path, member: str, source: Path) -> Path:
    """A zip at ``path`` holding the file ``source`` as ``member``."""
    Path(path).write_bytes(zip_bytes(member, Path(source).read_bytes()))
    return Path(path)


def smooth_load(
    n_meters: int, start: str, periods: int, step_minutes: int, rng: np.random.Generator, scale=None
) -> np.ndarray:
    """(periods x n_meters) positive loads in kW: per-meter level and evening peak, weekly cycle, noise."""
    t = pd.date_range(start, periods=periods, freq=f"{step_minutes}min")
    hour = np.asarray(t.hour + t.minute / 60.0, dtype=float)
    weekend = np.asarray(t.weekday >= 5)
    level = rng.lognormal(np.log(0.6), 0.4, n_meters) if scale is None else np.asarray(scale, float)
    peak_h = rng.normal(19.0, 1.0, n_meters)
    daily = (
        1.0
        + 0.8 * np.exp(-0.5 * ((hour[:, None] - peak_h[None]) / 1.5) ** 2)
        + 0.4 * np.exp(-0.5 * ((hour[:, None] - 7.5) / 1.0) ** 2)
    )
    daily *= np.where(weekend, 1.15, 1.0)[:, None]
    noise = rng.lognormal(0.0, 0.25, (periods, n_meters))
    return level[None] * daily * noise
