"""Timings of the data layer (plain script; run: PYTHONPATH=src python benchmarks/bench_data.py).

Synthetic model at the three experiment sizes, validation, and the UCI household loader on the
mirror excerpt (if ../shared/data is present).

``--csv DIR``: the bring-your-own CSV loader on generated files in DIR (a scratch folder, never the
repository): 1000 meters x 70 days at 15 min (221 MB) and smaller ones. Each measurement runs in a
fresh Python process and reports its wall time and peak RSS (``ru_maxrss``): ``load_csv`` alone, and
the ``meter_data`` job's work (``load_experiment_data`` + ``MeterData.save``). These numbers calibrate
:mod:`dpgrid.data.resources`. Example (DIR is created)::

    PYTHONPATH=src python benchmarks/bench_data.py --csv /work/scratch/data/bench
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from dpgrid.data.checks import validate_readings
from dpgrid.data.synthetic import synthesize_meter_data


def timed(label, func, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = func()
        best = min(best, time.perf_counter() - t0)
    print(f"{label:58s} {best:7.3f} s (best of {repeat})")
    return out


CASES = [
    ("dpkmeans: 1409 R + 7 C x 28 days, 60 min", (1409, 7, "2019-01-07", 28, 60)),
    ("classdp: 100 R x 56 days, 15 min", (100, 0, "2019-01-07", 56, 15)),
    ("spdp: 1 R x 365 days, 5 min", (1, 0, "2019-01-07", 365, 5)),
    ("1400 R x 365 days, 60 min (a household-year each)", (1400, 0, "2019-01-07", 365, 60)),
]


def write_meter_csv(
    path: Path, n_meters: int, days: int, step_minutes: int = 15, start: str = "2020-03-02", seed: int = 0
) -> Path:
    """A valid readings CSV: ``n_meters`` meters (M0001...) one after the other, kW with 4 decimals."""
    rng = np.random.default_rng(seed)
    t = pd.date_range(start, periods=days * 1440 // step_minutes, freq=f"{step_minutes}min")
    ts = np.asarray(t.strftime("%Y-%m-%d %H:%M:%S"), dtype=object)
    with open(path, "w") as fh:
        fh.write("meter_id,timestamp,kw\n")
        for m in range(n_meters):
            kw = rng.lognormal(np.log(0.6), 0.6, len(t))
            mid = f"M{m + 1:04d}"
            fh.write("".join(f"{mid},{a},{b:.4f}\n" for a, b in zip(ts, kw)))
    return path


_MEASURE = """
import json, resource, sys, time
import numpy as np
path, days, what, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
t0 = time.perf_counter()
if what == "load_csv":
    from dpgrid.data.csv_loader import load_csv
    load_csv(path, None, start="2020-03-02", days=days, step_minutes=15, min_coverage=0.8, max_fill_intervals=8)
else:
    from dpgrid.data.sources import load_experiment_data
    spec = dict(source="csv", start="2020-03-02", days=days, step_minutes=15, readings=path, meters=None)
    md = load_experiment_data(spec, np.random.default_rng(0), resample=dict(min_coverage=0.8, max_fill_intervals=8),
                              name="bench")
    md.save(out + "/readings.csv", out + "/meters.csv")
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"seconds": time.perf_counter() - t0, "cpu_seconds": ru.ru_utime + ru.ru_stime,
                  "peak_mb": ru.ru_maxrss / 1024}))
"""


def measure(path: Path, days: int, what: str, out: Path) -> dict:
    """Wall time and peak RSS of one load (``load_csv`` or ``job``) in a fresh process."""
    res = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(path), str(days), what, str(out)],
        check=True,
        capture_output=True,
        text=True,
        env=os.environ.copy(),
    )
    return json.loads(res.stdout.strip().splitlines()[-1])


def bench_csv(folder: Path, sizes=(1, 100, 250, 500, 1000)) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for n_meters in sizes:
        path = folder / f"readings_{n_meters}x70d.csv"
        if not path.is_file():
            write_meter_csv(path, n_meters, 70)
        size = path.stat().st_size / 1e6
        for what in ("load_csv", "job"):
            r = measure(path, 70, what, folder)
            rows.append((n_meters, size, what, r["seconds"], r["peak_mb"]))
            print(
                f"csv {n_meters:5d} meters x 70 days @15 min ({size:6.1f} MB) {what:8s} "
                f"{r['seconds']:7.2f} s wall {r['cpu_seconds']:7.2f} s CPU  peak RSS {r['peak_mb']:7.0f} MB",
                flush=True,
            )


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", type=Path, help="folder for generated CSV files: benchmark the CSV loader only")
    ap.add_argument(
        "--meters",
        type=int,
        nargs="+",
        default=[1, 100, 250, 500, 1000],
        help="file sizes (meters x 70 days at 15 min) for --csv",
    )
    cli = ap.parse_args()
    if cli.csv:
        bench_csv(cli.csv, cli.meters)
        sys.exit(0)
    for label, args in CASES:
        md = timed(f"synthesize {label}", lambda a=args: synthesize_meter_data(*a, np.random.default_rng(0)), repeat=2)
    md = synthesize_meter_data(1409, 7, "2019-01-07", 28, 60, np.random.default_rng(0))
    timed("validate_readings (1416 meters x 672 readings)", lambda: validate_readings(md.readings, "bench"), repeat=1)
    head = Path(__file__).resolve().parents[2] / "shared/data/uci_household/household_power_consumption_head.txt"
    if head.is_file():
        from dpgrid.data.uci_household import load_uci_household

        timed(
            "load_uci_household (mirror excerpt, 1999 minutes -> 15 min)",
            lambda: load_uci_household(
                head, start="2006-12-17", days=1, step_minutes=15, min_coverage=0.8, max_fill_intervals=8
            ),
        )
