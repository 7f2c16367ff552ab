"""Messages of the OPF study on data it cannot use: fewer household profiles than load buses names the config keys
and the minimum; a regulator failure whose base-case power flow is within limits reads as a sentence."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpgrid.grid import opf
from dpgrid.papers.dpkmeans.opf.stages import OPFConfigError, check_profiles_per_bus


@given(n_profiles=st.integers(0, 300), n_buses=st.integers(1, 300))
def test_fewer_profiles_than_load_buses_names_the_keys_and_the_minimum(n_profiles, n_buses):
    if n_profiles >= n_buses:
        check_profiles_per_bus(n_profiles, n_buses, "ieee123", "all", "profiles_true.csv")
        return
    with pytest.raises(OPFConfigError) as err:
        check_profiles_per_bus(n_profiles, n_buses, "ieee123", "all", "profiles_true.csv")
    msg = str(err.value)
    assert f"need at least {n_buses} households" in msg and f"have {n_profiles}" in msg
    assert "grid.experiment.load_buses" in msg and "dpkmeans.data_source" in msg and "data.experiments" in msg


def test_regulator_failure_within_limits_reads_as_a_sentence(monkeypatch):
    monkeypatch.setattr(
        opf,
        "diagnose_failure",
        lambda net, settings: {
            "cause": "solver",
            "detail": "power flow within all limits (vm 0.95000-1.05000 p.u.)",
            "pf_converged": True,
            "pf_vm_min": 0.95,
            "pf_vm_max": 1.05,
        },
    )

    class Regulators:
        def reset(self, net):
            return "reg1a: 0"

    res = opf._regulator_failure(None, np.ones(3), None, Regulators(), "no tap solution", np.array([np.nan]))
    assert "with the base-case taps the loads give no violation: power flow within all limits" in res.message
