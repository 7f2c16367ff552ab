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
does not converge keeps NaN voltages, the interior-point solver's own exit message and iteration
count, and a diagnosed ``cause`` (:func:`diagnose_failure`): the same loads are solved by a plain
Newton-Raphson power flow and the result is checked against every OPF limit.

Why the OPF equals the power flow here, and what that means for failures: the loads are fixed, the
slack's voltage is fixed (``ext_grid`` not controllable: MATPOWER case141 has Vmin = Vmax = 1 at the
slack) and there is no other generator, controllable load or tap in the OPF, so the only
"decisions" are the slack's P and Q, which the power balance determines. The feasible set is the
single power-flow solution, or empty when that solution violates a limit. Hence

- a power flow within limits whose OPF fails is a *solver* failure (cause ``solver``); the one
  seen on main came from how branch limits were "disabled" (see :func:`prepare_opf_network`);
- a power flow outside ``[vm_min_pu, vm_max_pu]`` (or the slack's P/Q limits) makes the OPF
  infeasible: a fact of the data and the feeder model, reported, never retried with looser limits;
- a diverging power flow means the loads have no operating point on this feeder.

Measured on the default pipeline (docs/grid.md): the OPF voltages of every converged snapshot equal
the power flow's within 1e-10 p.u. (pandapower PIPS; MATPOWER 8.1 MIPS in Octave on exported snapshots).
"""

from __future__ import annotations

import contextlib
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
        # 'results' (warm start from the previous snapshot's solution) is not offered: it needs no fewer
        # interior-point iterations than 'pf' here (PIPS restarts its barrier at every call; measured in
        # benchmarks/bench_opf.py) and would make a snapshot's last digits depend on which snapshot
        # ran before it in the same job, i.e. on grid.experiment.hours_per_job.
        if self.init not in ("pf", "flat"):
            raise ValueError(f"grid.opf.init: {self.init!r} not one of 'pf', 'flat'")


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
    cause: str = ""
    opf_iterations: int = -1
    regulator_taps: str = ""
    extra: dict = field(default_factory=dict)


#: Diagnosed causes of a failed snapshot (``status.csv`` column ``cause``; empty when converged).
CAUSES = {
    "power_flow_diverged": "the Newton-Raphson power flow of the same loads diverges: no operating point",
    "voltage_above_max": "the power-flow voltage exceeds vm_max_pu at some bus; the OPF has no control "
    "that could lower it, so it is infeasible (a fact of the loads and the feeder model)",
    "voltage_below_min": "the power-flow voltage is below vm_min_pu at some bus; the OPF has no control "
    "that could raise it, so it is infeasible (a fact of the loads and the feeder model)",
    "slack_limits": "the slack's power-flow P or Q is outside its limits (e.g. reverse flow with min_p_mw = 0)",
    "solver": "the power flow is within every OPF limit, yet the interior-point solver failed",
    "regulator_taps_not_solved": "OpenDSS's regulator controls (ieee123, regulator_taps: per_snapshot) found no "
    "solution for these loads, so the snapshot has no taps; the diagnosis in the message uses the base-case taps",
}


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
    - unless ``settings.branch_limits``, the branches have no loading limit: the
      ``max_loading_percent`` columns are removed, which gives ``RATE_A = 0``, the PYPOWER/MATPOWER
      code for "unlimited" (no flow constraint is built). Main set them to 1e6 % instead, i.e. finite
      limits of up to 6e4 MVA on a 1 MVA base: each line then adds a constraint
      ``|S|^2 - RATE_A^2 <= 0`` whose slack starts near 4e9, the interior point's initial
      complementarity gap is ~6e10 and its barrier parameter ~2e7, and on some ieee123 snapshots the
      first steps shrink below PIPS's minimum step ("Numerically failed" after 2 iterations) although
      the power flow is well within limits. MATPOWER's MIPS fails the same way on those cases and
      converges once RATE_A = 0. Without the constraints the solve also needs about half the time;
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
        for table in ("line", "trafo", "trafo3w", "impedance"):
            if "max_loading_percent" in net[table]:
                net[table] = net[table].drop(columns="max_loading_percent")
    for col, val in (("min_p_mw", -1e4), ("max_p_mw", 1e4), ("min_q_mvar", -1e4), ("max_q_mvar", 1e4)):
        if col not in net.ext_grid or net.ext_grid[col].isna().any():
            net.ext_grid[col] = val
    net.poly_cost.drop(index=net.poly_cost.index, inplace=True)
    for i in net.ext_grid.index:
        pp.create_poly_cost(net, int(i), "ext_grid", cp1_eur_per_mw=settings.slack_cost_per_mw)
    return net


@contextlib.contextmanager
def _pips_output():
    """Capture the result dict of PYPOWER's ``opf`` inside ``pandapower.runopp`` (exit flag, iterations).

    ``runopp`` raises ``OPFNotConverged`` without the solver's message; pandapower 3.5 calls
    ``pandapower.optimal_powerflow.opf``, which is wrapped for the duration of the block (restored
    afterwards). If that name moves in another pandapower version, nothing is captured.
    """
    import pandapower.optimal_powerflow as pop

    box: dict = {}
    original = getattr(pop, "opf", None)
    if original is None:
        yield box
        return

    def wrapper(ppci, ppopt):
        result = original(ppci, ppopt)
        box["result"] = result
        return result

    pop.opf = wrapper
    try:
        yield box
    finally:
        pop.opf = original


def _pips_summary(box: dict) -> tuple[str, int]:
    raw = box.get("result", {}).get("raw", {}) if box else {}
    out = raw.get("output", {}) if isinstance(raw, dict) else {}
    return str(out.get("message", "no solver output")), int(out.get("iterations", -1))


def opf_has_controls(net) -> bool:
    """True if the OPF has a decision besides the slack's P/Q (controllable generator, load, storage or slack)."""
    for table in ("sgen", "load", "storage", "ext_grid"):
        df = net[table]
        if len(df) and "controllable" in df and df["controllable"].fillna(False).astype(bool).any():
            return True
    if len(net.gen):  # pandapower's OPF treats a generator as controllable unless told otherwise
        return "controllable" not in net.gen or bool(net.gen["controllable"].fillna(True).astype(bool).any())
    return False


def diagnose_failure(net, settings: OPFSettings) -> dict:
    """Why did this snapshot's OPF fail? Solve the same loads by Newton-Raphson and check the OPF limits.

    Returns ``{"cause": one of CAUSES, "detail": str, "pf_converged", "pf_vm_min", "pf_vm_max"}``.
    Bus voltage limits are those of ``net.bus`` (as set by :func:`prepare_opf_network`); the slack's
    P/Q limits those of ``net.ext_grid``. ``net``'s result tables are overwritten.
    """
    import pandapower as pp

    try:
        pp.runpp(net, calculate_voltage_angles=True, numba=settings.numba, max_iteration=30)
    except pp.LoadflowNotConverged:
        return {
            "cause": "power_flow_diverged",
            "detail": f"power flow diverges at total load {net.load.p_mw.sum():.4f} MW",
            "pf_converged": False,
            "pf_vm_min": np.nan,
            "pf_vm_max": np.nan,
        }
    vm = net.res_bus.vm_pu
    vmin, vmax = float(vm.min()), float(vm.max())
    names = bus_names(net)
    pos = {b: i for i, b in enumerate(net.bus.index)}
    tol = 1e-9
    above = vm - net.bus.loc[vm.index, "max_vm_pu"]
    below = net.bus.loc[vm.index, "min_vm_pu"] - vm
    free = "" if not opf_has_controls(net) else " (the OPF's controls did not restore it)"
    base = {"pf_converged": True, "pf_vm_min": vmin, "pf_vm_max": vmax}
    if above.max() > tol:
        b = above.idxmax()
        return {
            **base,
            "cause": "voltage_above_max",
            "detail": f"power flow: {vm[b]:.6f} p.u. at bus "
            f"{names[pos[b]]} > vm_max {net.bus.at[b, 'max_vm_pu']:g} ({int((above > tol).sum())} bus(es)){free}",
        }
    if below.max() > tol:
        b = below.idxmax()
        return {
            **base,
            "cause": "voltage_below_min",
            "detail": f"power flow: {vm[b]:.6f} p.u. at bus "
            f"{names[pos[b]]} < vm_min {net.bus.at[b, 'min_vm_pu']:g} ({int((below > tol).sum())} bus(es)){free}",
        }
    for eg in net.ext_grid.itertuples():
        p, q = float(net.res_ext_grid.at[eg.Index, "p_mw"]), float(net.res_ext_grid.at[eg.Index, "q_mvar"])
        lims = {k: float(getattr(eg, k)) for k in ("min_p_mw", "max_p_mw", "min_q_mvar", "max_q_mvar")}
        if not (
            lims["min_p_mw"] - tol <= p <= lims["max_p_mw"] + tol
            and lims["min_q_mvar"] - tol <= q <= lims["max_q_mvar"] + tol
        ):
            return {
                **base,
                "cause": "slack_limits",
                "detail": f"power flow: slack P {p:.4f} MW, Q {q:.4f} MVAr "
                f"outside P [{lims['min_p_mw']:g}, {lims['max_p_mw']:g}], Q [{lims['min_q_mvar']:g}, "
                f"{lims['max_q_mvar']:g}]",
            }
    return {**base, "cause": "solver", "detail": f"power flow within all limits (vm {vmin:.5f}-{vmax:.5f} p.u.)"}


def run_snapshot(net, p_mw, settings: OPFSettings, *, regulators=None) -> SnapshotResult:
    """Run one AC OPF with load ``p_mw`` (one value per load, in ``net.load`` order).

    Reactive load is ``settings.q_to_p_ratio * p_mw``. With ``regulators`` (a
    :class:`dpgrid.grid.feeders.RegulatorControl`), the regulator taps are first solved for these
    loads and written into ``net``. Modifies ``net``'s loads, taps and results in place.
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
    taps = ""
    nan = np.full(len(net.bus), np.nan)
    if regulators is not None:
        from dpgrid.grid.feeders import RegulatorControlError

        try:
            taps = regulators.apply(net, regulators.taps(p_mw, net.load["q_mvar"].to_numpy(float)))
        except RegulatorControlError as exc:
            return _regulator_failure(net, p_mw, settings, regulators, exc, nan)
    t0 = time.perf_counter()
    with _pips_output() as box:
        try:
            pp.runopp(net, init=settings.init, calculate_voltage_angles=True, numba=settings.numba)
            ok = True
        except OPFNotConverged:
            ok = False
    seconds = time.perf_counter() - t0
    pips_message, iterations = _pips_summary(box)
    if ok:
        res = net.res_bus.loc[net.bus.index]
        return SnapshotResult(
            True,
            "converged",
            float(net.res_cost),
            float(net.res_ext_grid.p_mw.sum()),
            float(p_mw.sum()),
            seconds,
            res.vm_pu.to_numpy(float),
            res.va_degree.to_numpy(float),
            opf_iterations=iterations,
            regulator_taps=taps,
        )
    d = diagnose_failure(net, settings)
    msg = f"OPF did not converge (PIPS: {pips_message} after {iterations} iterations); {d['cause']}: {d['detail']}"
    LOG.warning(msg)
    return SnapshotResult(
        False,
        msg,
        float("nan"),
        float("nan"),
        float(p_mw.sum()),
        seconds,
        nan,
        nan.copy(),
        pf_converged=d["pf_converged"],
        pf_vm_min=d["pf_vm_min"],
        pf_vm_max=d["pf_vm_max"],
        cause=d["cause"],
        opf_iterations=iterations,
        regulator_taps=taps,
    )


def _regulator_failure(net, p_mw, settings: OPFSettings, regulators, exc, nan) -> SnapshotResult:
    """The snapshot whose regulator controls have no solution: not solved, recorded with the cause and a
    diagnosis of the same loads at the base-case taps (docs/grid.md: failures are diagnosed, never dropped)."""
    taps = regulators.reset(net)
    d = diagnose_failure(net, settings)
    msg = (
        f"regulator_taps_not_solved: {exc}; with the base-case taps the loads give {d['cause']}: {d['detail']}"
        if d["cause"] != "solver"
        else f"regulator_taps_not_solved: {exc}; with the base-case taps the loads give no violation: {d['detail']}"
    )
    LOG.warning(msg)
    return SnapshotResult(
        False,
        msg,
        float("nan"),
        float("nan"),
        float(p_mw.sum()),
        0.0,
        nan,
        nan.copy(),
        pf_converged=d["pf_converged"],
        pf_vm_min=d["pf_vm_min"],
        pf_vm_max=d["pf_vm_max"],
        cause="regulator_taps_not_solved",
        regulator_taps=f"base_case {taps}",
    )


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
        status.append(
            {
                "feeder": feeder,
                "profiles": profiles,
                "hour": hour,
                "converged": r.converged,
                "cause": r.cause,
                "message": r.message,
                "objective": r.objective,
                "slack_p_mw": r.slack_p_mw,
                "load_p_mw": r.load_p_mw,
                "pf_converged": r.pf_converged,
                "pf_vm_min": r.pf_vm_min,
                "pf_vm_max": r.pf_vm_max,
                "opf_iterations": r.opf_iterations,
                "regulator_taps": r.regulator_taps,
            }
        )
        volt.append(
            pd.DataFrame(
                {
                    "feeder": feeder,
                    "profiles": profiles,
                    "hour": hour,
                    "bus": net.bus.index.to_numpy(int),
                    "bus_name": names,
                    "vm_pu": r.vm_pu,
                    "va_degree": r.va_degree,
                }
            )
        )
    vcols = ["feeder", "profiles", "hour", "bus", "bus_name", "vm_pu", "va_degree"]
    return (pd.concat(volt, ignore_index=True) if volt else pd.DataFrame(columns=vcols)), pd.DataFrame(status)


def failure_summary(status: pd.DataFrame) -> str:
    """One line naming every failed snapshot by profile set, cause and hours, e.g.
    ``true: voltage_above_max h1-h4; synthetic: solver h8`` (empty if all converged)."""
    if status.empty:
        return ""
    bad = status[~status["converged"].astype(bool)]
    parts = []
    for prof, g in bad.groupby("profiles", sort=False):
        causes = g["cause"].fillna("unknown").replace("", "unknown") if "cause" in g else pd.Series("unknown", g.index)
        items = [
            f"{cause} {_hour_ranges(sorted(int(h) for h in g.loc[causes == cause, 'hour']))}"
            for cause in sorted(causes.unique())
        ]
        parts.append(f"{prof}: " + ", ".join(items))
    return "; ".join(parts)


def _hour_ranges(hours: list[int]) -> str:
    out, i = [], 0
    while i < len(hours):
        j = i
        while j + 1 < len(hours) and hours[j + 1] == hours[j] + 1:
            j += 1
        out.append(f"h{hours[i]}" if i == j else f"h{hours[i]}-h{hours[j]}")
        i = j + 1
    return ",".join(out)


def run_hours(net, loads: pd.DataFrame, hours, settings, *, feeder: str, profiles: str, regulator_master=None):
    """OPF for ``hours`` of profile set ``profiles``; returns (voltages, status) frames.

    ``regulator_master``: path of IEEE123Master.dss to solve the regulator taps per snapshot
    (:class:`dpgrid.grid.feeders.RegulatorControl`); None keeps the taps of ``net``.
    """
    from dpgrid.core.pipeline import Progress
    from dpgrid.grid.feeders import RegulatorControl

    sub = loads[loads.profiles == profiles]
    if sub.empty:
        raise ValueError(f"no loads for profile set {profiles!r}")
    opf_net = prepare_opf_network(net, sub["bus"].to_numpy(int), settings)
    regulators = None if regulator_master is None else RegulatorControl(regulator_master, opf_net, sub["bus"])
    results = {}
    progress = Progress(len(hours), f"OPF {feeder}/{profiles}")
    for h in hours:
        results[int(h)] = run_snapshot(opf_net, sub[f"h{int(h):02d}"].to_numpy(float), settings, regulators=regulators)
        progress.step()
    return snapshot_frames(opf_net, results, feeder=feeder, profiles=profiles)
