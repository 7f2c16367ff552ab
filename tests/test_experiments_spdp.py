"""The spdp experiment functions on a small synthetic home (15 weeks at 5 minutes)."""

import math

import numpy as np
import pandas as pd
import pytest

from dpgrid.data.meter import MeterDataError
from dpgrid.experiments.spdp import jobs as spdp

CFG = {
    "meter_id": None,
    "min_weeks": 13,
    "privacy": {"epsilon": math.log(2), "delta": 0.01},
    "psd": {"n_points": 288, "convention": "two_sided"},
    "calibration": {
        "spdp_window_weeks": [7, 12],
        "window_step_days": 7,
        "trdp_durations_hours": {"4h": 4, "1week": 168},
    },
    "mechanism": {
        "beta": 0.5,
        "correlation_structure": "ar1",
        "noise_scaling": "proposition2",
        "positive_filter": {"omega_n": 0.39, "gain": 0.8, "mode": "forward_backward"},
        "psd_window_days": 28,
    },
    "streaming": {
        "reduction_filter": {
            "cutoff_hz": 2e-4,
            "gain": 0.8,
            "order": 1,
            "adapt_factor": 0.8,
            "min_cutoff_hz": 1e-6,
            "gamma_floor": 1e-3,
            "gamma_handling": "adapt",
        },
        "mean_handling": "restore",
        "burn_in_hours": 48,
    },
}


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    synth = pytest.importorskip("dpgrid.data.synthetic")
    md = synth.synthesize_meter_data(1, 0, "2019-01-07", 105, 5, np.random.default_rng(3))
    d = tmp_path_factory.mktemp("spdp")
    md.save(d / "readings.csv", d / "meters.csv")
    return d


def test_calibration_and_release_on_synthetic_home(home):
    s, fs, info = spdp.load_series(home / "readings.csv", home / "meters.csv", CFG)
    assert fs == 12.0 and info["weeks"] == pytest.approx(15.0)
    x = s.to_numpy()
    cal = spdp.calibration(x, fs, CFG)
    assert cal["b_spdp"] > 0 and cal["b_spdp_n_windows"] == sum(15 - w + 1 for w in range(7, 13))
    assert cal["trdp"]["4h"]["samples"] == 48 and cal["trdp"]["1week"]["samples"] == 2016
    assert cal["trdp"]["4h"]["min_distance"] <= cal["trdp"]["4h"]["median_distance"] <= cal["trdp"]["4h"]["b"]
    r1 = spdp.spdp_release(x, fs, CFG, cal["b_spdp"], np.random.default_rng(1), np.random.default_rng(2))
    r2 = spdp.spdp_release(x, fs, CFG, cal["b_spdp"], np.random.default_rng(1), np.random.default_rng(2))
    assert np.array_equal(r1["released"], r2["released"])  # seeded: reproducible
    assert r1["mechanism"].satisfies_proposition2
    assert np.all(r1["design"].reduction.gamma > 0)
    assert r1["released"].shape == x.shape


def test_too_short_data_is_rejected_naming_file_and_key(tmp_path):
    idx = pd.date_range("2019-01-07", periods=288 * 20, freq="5min")
    pd.DataFrame({"meter_id": "H1", "timestamp": idx.strftime("%Y-%m-%dT%H:%M:%S"), "kw": 1.0}).to_csv(
        tmp_path / "r.csv", index=False
    )
    pd.DataFrame({"meter_id": ["H1"], "customer_class": ["residential"]}).to_csv(tmp_path / "m.csv", index=False)
    with pytest.raises(MeterDataError, match=r"r\.csv.*2\.9 weeks.*spdp\.min_weeks"):
        spdp.load_series(tmp_path / "r.csv", tmp_path / "m.csv", CFG)
    with pytest.raises(MeterDataError, match="meter_id = 'X'"):
        spdp.load_series(tmp_path / "r.csv", tmp_path / "m.csv", {**CFG, "meter_id": "X"})
