"""The fidelity figure's panel (c), the stand-in's HVAC-share sweep, says 'not applicable' when there is no sweep
(real data: the sweep varies the stand-in's free property) and draws the sweep otherwise."""

from types import SimpleNamespace

import matplotlib
import pandas as pd
import pytest

from dpgrid.papers.spdp.figures import fig_fidelity

matplotlib.use("Agg")


def _inputs(tmp_path, sweep: pd.DataFrame):
    pd.DataFrame(
        {
            "tag": ["paper_b"] * 2,
            "variant": ["base", "other"],
            "correlation": [0.3, 0.4],
            "correlation_sd": [0.01, 0.02],
            "noise_std_kw": [1.0, 1.1],
            "noise_std_kw_sd": [0.1, 0.1],
            "failure": ["", ""],
        }
    ).to_csv(tmp_path / "v.csv", index=False)
    sweep.to_csv(tmp_path / "ds.csv", index=False)
    pd.DataFrame(
        {"parameter": ["b_trdp_4h", "b_trdp_1week"], "reading": ["r", "r"], "value": [1.0, 2.0], "paper": [1.5, 2.5]}
    ).to_csv(tmp_path / "br.csv", index=False)
    return SimpleNamespace(variants=tmp_path / "v.csv", data_sweep=tmp_path / "ds.csv", b_readings=tmp_path / "br.csv")


SWEEP = pd.DataFrame(
    {
        "heating": ["gas", "gas"],
        "hvac_energy_share": [0.1, 0.2],
        "correlation": [0.3, 0.35],
        "correlation_sd": [0.01, 0.01],
        "feasible": [True, True],
    }
)


@pytest.mark.parametrize(
    "sweep,applicable",
    [
        (pd.DataFrame({"heating": [], "feasible": []}), False),  # csv data: an empty sweep
        (SWEEP.assign(feasible=False), False),  # no feasible point
        (SWEEP, True),
    ],
    ids=["empty", "infeasible", "stand-in"],
)
def test_panel_c_says_not_applicable_without_a_sweep(tmp_path, sweep, applicable):
    fig = fig_fidelity(_inputs(tmp_path, sweep), SimpleNamespace(data={"source": "spdp_standin", "days": 7}))
    panel = fig.axes[2]
    said = any("not applicable" in t.get_text() for t in panel.texts)
    assert said != applicable
    assert (len(panel.lines) > 1) == applicable  # the paper's line alone when there is no sweep
