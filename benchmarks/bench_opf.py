"""Benchmark of the dpkmeans grid study (Figs. 12-13): OPF time per snapshot and the total.

    PYTHONPATH=src python benchmarks/bench_opf.py [--mirror ../shared/data] [--sets 4] [--hours 25]

Prints: process start-up (imports), feeder build, first OPF (numba JIT when enabled) and the median
OPF time per snapshot after warm-up, per feeder, with numba off (the config default) and on; then the
serial CPU time of all snapshots of both figures (hours x profile sets x feeders) and the implied wall
time on 2 cores. Profiles are synthetic log-normal fixtures of the real files' shape.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

t_start = time.perf_counter()
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pandapower  # noqa: E402,F401

T_IMPORT = time.perf_counter() - t_start
warnings.simplefilter("ignore")

from dpgrid.grid import load_assignment as E  # noqa: E402
from dpgrid.grid.opf import run_hours  # noqa: E402
from dpgrid.grid import feeders, opf as O  # noqa: E402


def fixture_profiles(n, prefix, rng):
    cl = rng.integers(0, 6, n)
    t = np.arange(25)
    shape = 0.6 + 0.5 * np.exp(-((t - 19) / 3.0) ** 2)
    x = shape[None, :] * np.exp(rng.normal(0, 0.35, (n, 1)) + rng.normal(0, 0.25, (n, 25))) * (1 + 0.2 * cl[:, None])
    df = pd.DataFrame(x, columns=E.HOUR_COLUMNS)
    df.insert(0, "cluster", cl)
    df.insert(0, "profile_id", [f"{prefix}{i}" for i in range(n)])
    return df


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--sets", type=int, default=4, help="profile sets per feeder (true, synthetic, references)")
    ap.add_argument("--hours", type=int, default=25)
    args = ap.parse_args()
    print(f"imports (numpy, pandas, pandapower): {T_IMPORT:.2f} s")
    rng = np.random.default_rng(0)
    true, syn = fixture_profiles(1409, "t", rng), fixture_profiles(2000, "s", rng)
    total_cpu = 0.0
    for name in ("ieee123", "case141"):
        t0 = time.perf_counter()
        if name == "case141":
            net = feeders.load_case141()
        else:
            net = feeders.load_ieee123(Path(args.mirror) / "ieee123" / "123Bus" / "IEEE123Master.dss",
                                       regulator_vk_percent=0.1, regulator_vkr_percent=0.01)
        t_build = time.perf_counter() - t0
        buses = O.load_buses(net)
        s = E.sample_houses(true, syn, len(buses), np.random.default_rng(1), n_reference=args.sets - 2)
        m = E.bus_multipliers(s["true"][E.HOUR_COLUMNS].to_numpy(), E.base_bus_loads(net, buses), "uniform_peak")
        for numba in (False, True):
            st = O.OPFSettings(0.9, 1.1, 20.0, 0.1, numba=numba)
            opf_net = O.prepare_opf_network(net, buses, st)
            x = s["true"][E.HOUR_COLUMNS].to_numpy() * m[:, None]
            t0 = time.perf_counter()
            O.run_snapshot(opf_net, x[:, 0], st)
            first = time.perf_counter() - t0
            times = []
            for h in range(1, 8):
                t0 = time.perf_counter()
                O.run_snapshot(opf_net, x[:, h], st)
                times.append(time.perf_counter() - t0)
            print(f"{name}: build {t_build:.2f} s; numba={numba}: first OPF {first:.2f} s, "
                  f"median after warm-up {np.median(times):.3f} s/snapshot")
        st = O.OPFSettings(0.9, 1.1, 20.0, 0.1, numba=False)
        t0 = time.perf_counter()
        n_ok = n_all = 0
        for name_set, frame in s.items():
            loads = pd.DataFrame({"profiles": name_set, "bus": buses})
            loads[E.HOUR_COLUMNS] = frame[E.HOUR_COLUMNS].to_numpy() * m[:, None]
            _, status = run_hours(net, loads, range(args.hours), st, feeder=name, profiles=name_set)
            n_ok += int(status.converged.sum())
            n_all += len(status)
        dt = time.perf_counter() - t0
        total_cpu += dt
        print(f"{name}: {n_all} snapshots ({args.sets} sets x {args.hours} h) in {dt:.1f} s serial "
              f"({dt / n_all:.3f} s each), {n_ok} converged")
    print(f"both figures: {total_cpu:.1f} s of OPF CPU; on 2 cores about {total_cpu / 2:.1f} s "
          f"+ per-job start-up (~{T_IMPORT:.1f} s imports per job)")


if __name__ == "__main__":
    main()
