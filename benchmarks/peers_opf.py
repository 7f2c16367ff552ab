"""One AC OPF snapshot: dpgrid's snapshot OPF vs pandapower's ``runopp`` with its defaults (for bench_peers.py).

dpgrid's OPF (:func:`dpgrid.grid.opf.run_snapshot`, the dpkmeans grid study, Figs. 12-13) *is* pandapower's
``runopp`` (PYPOWER's interior point) on the network :func:`dpgrid.grid.opf.prepare_opf_network` builds, with
the settings of ``config/config.yaml`` ``grid.opf`` (``init='pf'``: start from a Newton power flow;
``numba=False``) plus the bookkeeping of a snapshot (loads, result frames, PIPS exit flag and iterations).
The library side calls ``pandapower.runopp(net)`` on the same network and loads with every argument at its
default (``init='flat'``, ``numba=True``). Times: median over the snapshots, after one warm-up call each (so
numba's JIT compilation is not counted); agreement: the largest difference of the bus voltages and the
relative difference of the objective (slack cost).

Feeders: case141 (pandapower's networks, no download) and IEEE 123 (OpenDSS files of the mirror
``DPGRID_MIRROR`` or ../shared/data, if present); loads: the synthetic profiles of benchmarks/bench_opf.py
scaled to the feeder's base loads as the pipeline does.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
HOURS = (0, 6, 12, 18, 20)


def _feeders():
    from dpgrid.grid import feeders

    out = [("case141", feeders.load_case141)]
    mirror = Path(os.environ.get("DPGRID_MIRROR", HERE.parents[1] / "shared" / "data"))
    master = mirror / "ieee123" / "123Bus" / "IEEE123Master.dss"
    if master.exists():
        out.append(
            ("ieee123", lambda: feeders.load_ieee123(master, regulator_vk_percent=0.1, regulator_vkr_percent=0.01))
        )
    return out


def _settings():
    import yaml

    from dpgrid.grid.opf import OPFSettings

    cfg = yaml.safe_load((HERE.parent / "config" / "config.yaml").read_text())["grid"]["opf"]
    keys = ("vm_min_pu", "vm_max_pu", "slack_cost_per_mw", "q_to_p_ratio", "init", "branch_limits", "numba")
    return OPFSettings(**{k: cfg[k] for k in keys if k in cfg})


def measure() -> list[dict]:
    import pandapower as pp

    sys.path.insert(0, str(HERE))
    from bench_opf import fixture_profiles

    from dpgrid.grid import load_assignment as E
    from dpgrid.grid import opf as O

    warnings.simplefilter("ignore")
    st = _settings()
    rng = np.random.default_rng(0)
    true, syn = fixture_profiles(1409, "t", rng), fixture_profiles(2000, "s", rng)
    rows = []
    for name, build in _feeders():
        net = build()
        buses = O.load_buses(net)
        s = E.sample_houses(true, syn, len(buses), np.random.default_rng(1), n_reference=1)
        m = E.bus_multipliers(s["true"][E.HOUR_COLUMNS].to_numpy(), E.base_bus_loads(net, buses), "uniform_peak")
        x = s["true"][E.HOUR_COLUMNS].to_numpy() * m[:, None]
        ours = O.prepare_opf_network(net, buses, st)
        lib = O.prepare_opf_network(net, buses, st)
        O.run_snapshot(ours, x[:, HOURS[0]], st)  # warm-up (first call: pandapower's lazy imports)
        lib.load["p_mw"] = x[:, HOURS[0]]
        lib.load["q_mvar"] = st.q_to_p_ratio * x[:, HOURS[0]]
        pp.runopp(lib)  # warm-up (numba's JIT)
        t_ours, t_lib, dv, dobj, ok = [], [], [], [], 0
        for h in HOURS:
            r = O.run_snapshot(ours, x[:, h], st)
            t_ours.append(r.seconds)
            lib.load["p_mw"] = x[:, h]
            lib.load["q_mvar"] = st.q_to_p_ratio * x[:, h]
            t0 = time.perf_counter()
            try:
                pp.runopp(lib)
                lib_ok = True
            except pp.OPFNotConverged:
                lib_ok = False
            t_lib.append(time.perf_counter() - t0)
            if r.converged and lib_ok:
                ok += 1
                dv.append(float(np.abs(r.vm_pu - lib.res_bus.loc[lib.bus.index].vm_pu.to_numpy(float)).max()))
                dobj.append(abs(r.objective - float(lib.res_cost)) / max(abs(float(lib.res_cost)), 1e-12))
        a, b = statistics.median(t_ours), statistics.median(t_lib)
        rows.append(
            {
                "comparison": f"one AC OPF snapshot, {name} ({len(net.bus)} buses), median of {len(HOURS)} hours",
                "dpgrid": f"dpgrid.grid.opf.run_snapshot (runopp init={st.init!r}, numba={st.numba})",
                "library": f"pandapower {pp.__version__} runopp defaults (init='flat', numba=True)",
                "dpgrid_s": a,
                "library_s": b,
                "ratio": a / b,
                "agreement": (
                    f"{ok}/{len(HOURS)} both converged; max |dV| {max(dv):.2g} pu, objective rel. diff {max(dobj):.2g}"
                    if dv
                    else f"{ok}/{len(HOURS)} both converged"
                ),
                "note": "the same solver (PYPOWER PIPS through runopp), so the times agree; dpgrid's init='pf' "
                "starts from the Newton power flow, which is the OPF's solution here (the OPF has no control: "
                "config grid.opf), and numba is off (its JIT costs 3-7 s per job for no per-snapshot gain)",
            }
        )
    return rows


if __name__ == "__main__":
    for row in measure():
        print(row)
