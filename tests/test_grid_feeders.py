"""Feeders: case141 conversions against an independent parse, IEEE 123 against OpenDSS's own solution."""

import math

import numpy as np
import pandapower as pp
import pytest

from dpgrid.grid.feeders import (FeederError, case141_conversion, case141_path, load_case141, load_feeder,
                                 load_ieee123, opendss_bus_voltages, save_feeder)
from dpgrid.grid.opf import OPFSettings, load_buses, prepare_opf_network, run_snapshot
from dpgrid.experiments.opf import compare_with_opendss


@pytest.fixture(scope="module")
def case141():
    return load_case141()


def test_case141_load_matches_independent_conversion(case141):
    # Independent parse of the same file (matpowercaseframes), MATPOWER's conversion applied by hand:
    # PD column in kVA -> MVA, P = S pf, Q = S sin(acos pf).
    from matpowercaseframes import CaseFrames

    bus = CaseFrames(str(case141_path())).bus
    s_mva = bus["PD"].to_numpy(float) / 1e3
    pf = case141_conversion(case141_path())["power_factor"]
    assert pf == pytest.approx(0.85)
    assert case141.load.p_mw.sum() == pytest.approx(s_mva.sum() * pf, rel=1e-12)
    assert case141.load.q_mvar.sum() == pytest.approx(s_mva.sum() * math.sin(math.acos(pf)), rel=1e-12)
    # the unconverted table would sum to about 14 052 "MW" (field notes)
    assert 10 < case141.load.p_mw.sum() < 15


def test_case141_power_flow_converges_with_plausible_voltages(case141):
    net = pp.from_json_string(pp.to_json(case141))
    pp.runpp(net)
    assert net.converged
    vmin = net.res_bus.vm_pu.min()
    assert 0.9 < vmin < 0.96  # a long radial feeder: a few per cent of drop, not a collapse
    losses = net.res_ext_grid.p_mw.sum() - net.load.p_mw.sum()
    assert 0 < losses < 0.1 * net.load.p_mw.sum()


def test_case141_without_conversion_statements_is_refused(tmp_path):
    text = case141_path().read_text()
    bad = tmp_path / "case141.m"
    bad.write_text(text.replace("Vbase^2", "Vbase ^ 2 * 1"))
    with pytest.raises(FeederError, match="conversion statement"):
        case141_conversion(bad)


def test_case141_opf_converges_and_respects_limits(case141, tmp_path):
    save_feeder(case141, tmp_path / "c.json")
    net = load_feeder(tmp_path / "c.json")
    settings = OPFSettings(vm_min_pu=0.9, vm_max_pu=1.1, slack_cost_per_mw=20.0, q_to_p_ratio=0.1)
    buses = load_buses(net)
    prepare_opf_network(net, buses, settings)
    p = net.load.p_mw.to_numpy(float) * 0.5
    r = run_snapshot(net, p, settings)
    assert r.converged
    assert np.all(r.vm_pu >= 0.9 - 1e-6) and np.all(r.vm_pu <= 1.1 + 1e-6)
    assert r.load_p_mw == pytest.approx(p.sum())
    assert r.slack_p_mw > r.load_p_mw  # losses are positive
    np.testing.assert_allclose(net.load.q_mvar.to_numpy(), 0.1 * p, rtol=1e-12)


@pytest.fixture(scope="module")
def ieee123_master(shared_data):
    return shared_data / "ieee123" / "123Bus" / "IEEE123Master.dss"


def test_ieee123_matches_opendss_solution(ieee123_master):
    net = load_ieee123(ieee123_master, regulator_vk_percent=0.1, regulator_vkr_percent=0.01)
    ref = opendss_bus_voltages(ieee123_master)
    assert ref.attrs["converged"]
    pp.runpp(net)
    assert net.converged
    cmp = compare_with_opendss(net, ref)
    assert cmp["opendss_buses_matched"] >= 0.9 * cmp["opendss_buses"]
    # balanced positive-sequence model vs OpenDSS's unbalanced solution on the three-phase buses
    assert cmp["opendss_max_abs_dv1_3ph"] < 2e-3
    assert net.load.p_mw.sum() == pytest.approx(3.49, abs=0.01)  # field notes: 91 loads, 3.49 MW
    # slack power within 2 % of OpenDSS's source power (losses modelled alike)
    assert net.res_ext_grid.p_mw.sum() == pytest.approx(ref.attrs["p_mw"], rel=0.02)
