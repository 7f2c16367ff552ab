"""AC optimal power flow snapshots on a feeder with one house profile per load bus.

Implements steps 3-4 of the grid study of Ravi et al. (IEEE TSG 2022, Sec. V-B, "Standard Test
Systems"): set the active load of each load bus to a (scaled) house profile value, the reactive load
to a fixed fraction of it (10 % in the paper), run an AC OPF and collect voltage magnitude and angle
at every bus. The OPF is pandapower's ``runopp`` (PYPOWER interior point): the only cost is a linear
cost on the slack's active power, bus voltage limits are stated explicitly, and branch flow limits
are disabled by default (MATPOWER's case141 has none; the study is about voltages).

``numba=False`` is the default: on these feeders (< 150 buses) the interpreted PYPOWER path is as
fast per snapshot as the numba one and avoids numba's first-call compilation (3-7 s per process),
which would dominate short snapshot jobs (measured in benchmarks/bench_opf.py).

Every snapshot returns a :class:`SnapshotResult` with its convergence status. A snapshot whose OPF
does not converge keeps NaN voltages and a message; a plain power flow is then run to tell an
infeasible voltage band (power flow converges, voltages out of limits) from a numerical failure.
"""

from __future__ import annotations

import copy
import logging
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class OPFSettings:
    """Parameters of every snapshot OPF (config ``grid.opf``)."""

    vm_min_pu: float
    vm_max_pu: float
    slack_cost_per_mw: float
    q_to_p_ratio: float
    init: str = "pf"
    branch_limits: bool = False
    numba: bool = False

    def __post_init__(self) -> None:
        if not 0 < self.vm_min_pu < self.vm_max_pu:
            raise ValueError(f"grid.opf: need 0 < vm_min_pu < vm_max_pu, got {self.vm_min_pu}, {self.vm_max_pu}")
        if self.init not in ("pf", "flat", "results"):
            raise ValueError(f"grid.opf.init: {self.init!r} not one of 'pf', 'flat', 'results'")


@dataclass
class SnapshotResult:
    """Outcome of one snapshot OPF. ``vm_pu``/``va_degree`` are indexed like ``net.bus`` (NaN if not converged)."""

    converged: bool
    message: str
    objective: float
    slack_p_mw: float
    load_p_mw: float
    seconds: float
    vm_pu: np.ndarray
    va_degree: np.ndarray
    pf_converged: bool = True
    pf_vm_min: float = float("nan")
    pf_vm_max: float = float("nan")
    extra: dict = field(default_factory=dict)


def load_buses(net) -> np.ndarray:
    """Sorted indices of the buses that carry an in-service load with positive active power."""
    loads = net.load[net.load.in_service & (net.load.p_mw > 0)]
    if loads.empty:
        raise ValueError(f"feeder {net.name!r} has no in-service load with p_mw > 0")
    return np.array(sorted(set(loads.bus.astype(int))), dtype=int)


def prepare_opf_network(net, buses, settings: OPFSettings):
    """A copy of ``net`` with one controllable-free load per bus in ``buses`` and the OPF set-up.

    - all existing loads are removed and one load (``house_<bus>``) is created per bus, in the order
      of ``buses`` (so ``p_mw`` arrays passed to :func:`run_snapshot` follow that order);
    - every bus gets ``[vm_min_pu, vm_max_pu]``; a slack bus keeps a band that contains its setpoint;
    - branch loading limits are set to a very large value unless ``settings.branch_limits``;
    - the only cost is ``slack_cost_per_mw`` on each external grid's active power.
    """
    import pandapower as pp

    buses = np.asarray(buses, dtype=int)
    if len(np.unique(buses)) != len(buses):
        raise ValueError("load buses must be distinct")
    unknown = sorted(set(buses) - set(net.bus.index))
    if unknown:
        raise ValueError(f"load buses {unknown[:5]} not in feeder {net.name!r}")
    net = copy.deepcopy(net)
    net.load.drop(index=net.load.index, inplace=True)
    for b in buses:
        pp.create_load(net, bus=int(b), p_mw=0.0, q_mvar=0.0, name=f"house_{int(b)}", controllable=False)
    net.bus["min_vm_pu"] = settings.vm_min_pu
    net.bus["max_vm_pu"] = settings.vm_max_pu
    for eg in net.ext_grid.itertuples():
        net.bus.at[eg.bus, "min_vm_pu"] = min(settings.vm_min_pu, eg.vm_pu)
        net.bus.at[eg.bus, "max_vm_pu"] = max(settings.vm_max_pu, eg.vm_pu)
    if not settings.branch_limits:
        net.line["max_loading_percent"] = 1e6
        if len(net.trafo):
            net.trafo["max_loading_percent"] = 1e6
    for col, val in (("min_p_mw", -1e4), ("max_p_mw", 1e4), ("min_q_mvar", -1e4), ("max_q_mvar", 1e4)):
        if col not in net.ext_grid or net.ext_grid[col].isna().any():
            net.ext_grid[col] = val
    net.poly_cost.drop(index=net.poly_cost.index, inplace=True)
    for i in net.ext_grid.index:
        pp.create_poly_cost(net, int(i), "ext_grid", cp1_eur_per_mw=settings.slack_cost_per_mw)
    return net


def run_snapshot(net, p_mw, settings: OPFSettings) -> SnapshotResult:
    """Run one AC OPF with load ``p_mw`` (one value per load, in ``net.load`` order).

    Reactive load is ``settings.q_to_p_ratio * p_mw``. Modifies ``net``'s loads and results in place.
    """
    import pandapower as pp
    from pandapower.optimal_powerflow import OPFNotConverged

    p_mw = np.asarray(p_mw, dtype=float)
    if p_mw.shape != (len(net.load),):
        raise ValueError(f"p_mw has shape {p_mw.shape}, feeder has {len(net.load)} loads")
    if not np.all(np.isfinite(p_mw)):
        raise ValueError("p_mw has non-finite values")
    net.load["p_mw"] = p_mw
    net.load["q_mvar"] = settings.q_to_p_ratio * p_mw
    nan = np.full(len(net.bus), np.nan)
    t0 = time.perf_counter()
    try:
        pp.runopp(net, init=settings.init, calculate_voltage_angles=True, numba=settings.numba)
        ok, msg = True, "converged"
    except OPFNotConverged as exc:
        ok, msg = False, f"OPF did not converge: {exc}"
    seconds = time.perf_counter() - t0
    if ok:
        res = net.res_bus.loc[net.bus.index]
        return SnapshotResult(True, msg, float(net.res_cost), float(net.res_ext_grid.p_mw.sum()),
                              float(p_mw.sum()), seconds, res.vm_pu.to_numpy(float), res.va_degree.to_numpy(float))
    # diagnose: is the operating point itself solvable?
    pf_ok, vmin, vmax = True, np.nan, np.nan
    try:
        pp.runpp(net, calculate_voltage_angles=True, numba=settings.numba)
        vmin, vmax = float(net.res_bus.vm_pu.min()), float(net.res_bus.vm_pu.max())
    except pp.LoadflowNotConverged:
        pf_ok = False
    LOG.warning("%s (power flow %s, vm in [%.4f, %.4f])", msg, "converged" if pf_ok else "diverged", vmin, vmax)
    return SnapshotResult(False, msg, float("nan"), float("nan"), float(p_mw.sum()), seconds, nan, nan.copy(),
                          pf_converged=pf_ok, pf_vm_min=vmin, pf_vm_max=vmax)


def bus_names(net) -> np.ndarray:
    """Bus names as strings; a bus without a name (MATPOWER cases) gets its index + 1 (the MATPOWER number)."""
    idx = net.bus.index.to_numpy(int)
    names = net.bus["name"] if "name" in net.bus else pd.Series(None, index=net.bus.index)
    return np.array([str(n) if isinstance(n, str) and n else str(i + 1) for i, n in zip(idx, names)], dtype=object)


def snapshot_frames(net, results: dict[int, SnapshotResult], *, feeder: str, profiles: str):
    """Long voltage table (one row per hour and bus) and status table (one row per hour).

    Solve times are logged, not tabulated: result tables must be byte-identical across runs.
    """
    volt, status = [], []
    names = bus_names(net)
    for hour in sorted(results):
        r = results[hour]
        LOG.info("%s/%s hour %d: %s in %.3f s", feeder, profiles, hour, r.message, r.seconds)
        status.append({"feeder": feeder, "profiles": profiles, "hour": hour, "converged": r.converged,
                       "message": r.message, "objective": r.objective, "slack_p_mw": r.slack_p_mw,
                       "load_p_mw": r.load_p_mw, "pf_converged": r.pf_converged,
                       "pf_vm_min": r.pf_vm_min, "pf_vm_max": r.pf_vm_max})
        volt.append(pd.DataFrame({"feeder": feeder, "profiles": profiles, "hour": hour,
                                  "bus": net.bus.index.to_numpy(int), "bus_name": names,
                                  "vm_pu": r.vm_pu, "va_degree": r.va_degree}))
    vcols = ["feeder", "profiles", "hour", "bus", "bus_name", "vm_pu", "va_degree"]
    return (pd.concat(volt, ignore_index=True) if volt else pd.DataFrame(columns=vcols)), pd.DataFrame(status)


def run_hours(net, loads: pd.DataFrame, hours, settings, *, feeder: str, profiles: str):
    """OPF for ``hours`` of profile set ``profiles``; returns (voltages, status) frames."""
    from dpgrid.pipeline import Progress

    sub = loads[loads.profiles == profiles]
    if sub.empty:
        raise ValueError(f"no loads for profile set {profiles!r}")
    opf_net = prepare_opf_network(net, sub["bus"].to_numpy(int), settings)
    results = {}
    progress = Progress(len(hours), f"OPF {feeder}/{profiles}")
    for h in hours:
        results[int(h)] = run_snapshot(opf_net, sub[f"h{int(h):02d}"].to_numpy(float), settings)
        progress.step()
    return snapshot_frames(opf_net, results, feeder=feeder, profiles=profiles)
