"""Timings of the data layer (plain script; run: PYTHONPATH=src python benchmarks/bench_data.py).

Synthetic model at the three experiment sizes, validation, and the UCI household loader on the
mirror excerpt (if ../shared/data is present).
"""
import time
from pathlib import Path

import numpy as np

from dpgrid.data.meter import validate_readings
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

if __name__ == "__main__":
    for label, args in CASES:
        md = timed(f"synthesize {label}", lambda: synthesize_meter_data(*args, np.random.default_rng(0)), repeat=2)
    md = synthesize_meter_data(1409, 7, "2019-01-07", 28, 60, np.random.default_rng(0))
    timed("validate_readings (1416 meters x 672 readings)", lambda: validate_readings(md.readings, "bench"), repeat=1)
    head = Path(__file__).resolve().parents[2] / "shared/data/uci_household/household_power_consumption_head.txt"
    if head.is_file():
        from dpgrid.data.loaders import load_uci_household

        timed("load_uci_household (mirror excerpt, 1999 minutes -> 15 min)",
              lambda: load_uci_household(head, start="2006-12-17", days=1, step_minutes=15,
                                         min_coverage=0.8, max_fill_intervals=8))
