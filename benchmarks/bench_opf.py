"""Benchmark of the dpkmeans grid study (Figs. 12-13): OPF time per snapshot, before and after the fix.

    PYTHONPATH=src python benchmarks/bench_opf.py [--mirror ../shared/data] [--sets 4] [--hours 25]

Per feeder, over the hours of one profile set (synthetic log-normal fixtures of the real files' shape):

- ``main``: branch limits "disabled" by max_loading_percent = 1e6 (finite flow constraints), taps frozen;
- ``fix``: no branch constraints (RATE_A = 0), taps frozen (``regulator_taps: base_case``);
- ``fix+taps``: as ``fix`` with the IEEE 123 regulators solved by OpenDSS per snapshot (default);
- init ``flat`` and a warm start from the previous hour's solution (pandapower ``init='results'``),
  to answer whether warm starting helps (issue 20);
- numba on vs off (first call = JIT) with the fix;

then the serial CPU time of all snapshots of both figures (hours x sets x feeders) with the defaults
and the implied wall time on 2 cores. Prints converged counts, median/mean seconds and PIPS iterations.
"""

from __future__ import annotations

import argparse
import copy
import time
import warnings
from pathlib import Path

t_start = time.perf_counter()
import numpy as np
import pandapower as pp
import pandas as pd

T_IMPORT = time.perf_counter() - t_start
warnings.simplefilter("ignore")

from dpgrid.grid import feeders  # noqa: E402
from dpgrid.grid import load_assignment as E  # noqa: E402
from dpgrid.grid import opf as O  # noqa: E402
from dpgrid.grid.opf import run_hours  # noqa: E402


def fixture_profiles(n, prefix, rng):
    cl = rng.integers(0, 6, n)
    t = np.arange(25)
    shape = 0.6 + 0.5 * np.exp(-(((t - 19) / 3.0) ** 2))
    x = shape[None, :] * np.exp(rng.normal(0, 0.35, (n, 1)) + rng.normal(0, 0.25, (n, 25))) * (1 + 0.2 * cl[:, None])
    df = pd.DataFrame(x, columns=E.HOUR_COLUMNS)
    df.insert(0, "cluster", cl)
    df.insert(0, "profile_id", [f"{prefix}{i}" for i in range(n)])
    return df


def line(label, results, extra=""):
    s = np.array([r.seconds for r in results])
    it = np.array([r.opf_iterations for r in results])
    ok = sum(r.converged for r in results)
    print(
        f"  {label:<34} {ok:>2}/{len(results)} converged, median {np.median(s):.3f} s, mean {s.mean():.3f} s, "
        f"PIPS iterations {it.mean():.1f}{extra}"
    )


def run_variant(net, buses, x, hours, settings, *, main_limits=False, regulator_master=None):
    opf_net = O.prepare_opf_network(net, buses, settings)
    if main_limits:
        opf_net.line["max_loading_percent"] = 1e6
        opf_net.trafo["max_loading_percent"] = 1e6
    reg = feeders.RegulatorControl(regulator_master, opf_net, buses) if regulator_master else None
    out, t_reg = [], []
    for h in hours:
        t0 = time.perf_counter()
        r = O.run_snapshot(opf_net, x[:, h], settings, regulators=reg)
        t_reg.append(time.perf_counter() - t0 - r.seconds)
        out.append(r)
    return out, float(np.median(t_reg))


def warm_start(net, buses, x, hours, settings):
    """init='results' from the previous hour's solved state (pandapower runopp directly)."""
    opf_net = O.prepare_opf_network(net, buses, settings)
    rows = []
    for i, h in enumerate(hours):
        opf_net.load["p_mw"] = x[:, h]
        opf_net.load["q_mvar"] = settings.q_to_p_ratio * x[:, h]
        with O._pips_output() as box:
            t0 = time.perf_counter()
            try:
                pp.runopp(opf_net, init="results" if i else "pf", calculate_voltage_angles=True, numba=False)
                ok = True
            except pp.OPFNotConverged:
                ok = False
            dt = time.perf_counter() - t0
        msg, it = O._pips_summary(box)
        rows.append(O.SnapshotResult(ok, msg, np.nan, np.nan, 0.0, dt, np.array([]), np.array([]), opf_iterations=it))
    return rows[1:]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--sets", type=int, default=4, help="profile sets per feeder (true, synthetic, references)")
    ap.add_argument("--hours", type=int, default=25)
    args = ap.parse_args()
    print(f"imports (numpy, pandas, pandapower): {T_IMPORT:.2f} s")
    rng = np.random.default_rng(0)
    true, syn = fixture_profiles(1409, "t", rng), fixture_profiles(2000, "s", rng)
    master = Path(args.mirror) / "ieee123" / "123Bus" / "IEEE123Master.dss"
    hours = list(range(args.hours))
    st = O.OPFSettings(0.9, 1.1, 20.0, 0.1)
    total_cpu = 0.0
    for name in ("ieee123", "case141"):
        t0 = time.perf_counter()
        net = (
            feeders.load_case141()
            if name == "case141"
            else feeders.load_ieee123(master, regulator_vk_percent=0.1, regulator_vkr_percent=0.01)
        )
        print(f"{name}: build {time.perf_counter() - t0:.2f} s")
        buses = O.load_buses(net)
        s = E.sample_houses(true, syn, len(buses), np.random.default_rng(1), n_reference=args.sets - 2)
        m = E.bus_multipliers(s["true"][E.HOUR_COLUMNS].to_numpy(), E.base_bus_loads(net, buses), "uniform_peak")
        x = s["true"][E.HOUR_COLUMNS].to_numpy() * m[:, None]
        O.run_snapshot(O.prepare_opf_network(net, buses, st), x[:, 0], st)  # warm-up
        line("main (limits 1e6 %), init pf", run_variant(net, buses, x, hours, st, main_limits=True)[0])
        line("fix (no branch constraints), pf", run_variant(net, buses, x, hours, st)[0])
        flat = O.OPFSettings(0.9, 1.1, 20.0, 0.1, init="flat")
        line("fix, init flat", run_variant(net, buses, x, hours, flat)[0])
        line("fix, warm start from previous hour", warm_start(net, buses, x, hours, st))
        if name == "ieee123":
            res, t_reg = run_variant(net, buses, x, hours, st, regulator_master=master)
            line("fix + regulator taps per snapshot", res, f"; OpenDSS taps {t_reg * 1e3:.1f} ms/snapshot")
        for numba in (False, True):
            nst = O.OPFSettings(0.9, 1.1, 20.0, 0.1, numba=numba)
            opf_net = O.prepare_opf_network(net, buses, nst)
            t0 = time.perf_counter()
            O.run_snapshot(opf_net, x[:, 0], nst)
            first = time.perf_counter() - t0
            times = [O.run_snapshot(opf_net, x[:, h], nst).seconds for h in range(1, 8)]
            print(f"  numba={numba}: first OPF {first:.2f} s, median after warm-up {np.median(times):.3f} s/snapshot")
        t0 = time.perf_counter()
        n_ok = n_all = 0
        for name_set, frame in s.items():
            loads = pd.DataFrame({"profiles": name_set, "bus": buses})
            loads[E.HOUR_COLUMNS] = frame[E.HOUR_COLUMNS].to_numpy() * m[:, None]
            _, status = run_hours(
                copy.deepcopy(net),
                loads,
                hours,
                st,
                feeder=name,
                profiles=name_set,
                regulator_master=master if name == "ieee123" else None,
            )
            n_ok += int(status.converged.sum())
            n_all += len(status)
        dt = time.perf_counter() - t0
        total_cpu += dt
        print(
            f"  defaults: {n_all} snapshots ({args.sets} sets x {args.hours} h) in {dt:.1f} s serial "
            f"({dt / n_all:.3f} s each incl. set-up), {n_ok} converged"
        )
    print(
        f"both figures: {total_cpu:.1f} s of OPF CPU; on 2 cores about {total_cpu / 2:.1f} s "
        f"+ per-job start-up (~{T_IMPORT:.1f} s imports per job)"
    )


if __name__ == "__main__":
    main()
