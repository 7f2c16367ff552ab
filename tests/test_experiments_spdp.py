"""The spdp experiment functions on a small synthetic home (15 weeks at 5 minutes), and the claims spec table."""

import copy

import numpy as np
import pandas as pd
import pytest

from dpgrid.data.meter import MeterDataError
from dpgrid.experiments.spdp import jobs as spdp


@pytest.fixture(scope="module")
def cfg(rule_job):
    """The pipeline's spdp config as the rules pass it (config/quick.yaml over config/config.yaml, validated): the
    calibration job's and the release job's params, with the reduction filter's ``adapt`` handling of gamma
    (the configured default is ``clip``) so that the release below exercises the adaptation of F."""
    merged = copy.deepcopy({**rule_job("spdp_calibration").params.cfg, **rule_job("spdp_release").params.cfg})
    merged["streaming"]["reduction_filter"]["gamma_handling"] = "adapt"
    return merged


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    synth = pytest.importorskip("dpgrid.data.synthetic")
    md = synth.synthesize_meter_data(1, 0, "2019-01-07", 105, 5, np.random.default_rng(3))
    d = tmp_path_factory.mktemp("spdp")
    md.save(d / "readings.csv", d / "meters.csv")
    return d


def test_calibration_and_release_on_synthetic_home(home, cfg):
    s, fs, info = spdp.load_series(home / "readings.csv", home / "meters.csv", cfg)
    assert fs == 12.0 and info["weeks"] == pytest.approx(15.0)
    x = s.to_numpy()
    cal = spdp.calibration(x, fs, cfg)
    assert cal["b_spdp"] > 0 and cal["b_spdp_n_windows"] == sum(15 - w + 1 for w in range(7, 13))
    assert cal["trdp"]["4h"]["samples"] == 48 and cal["trdp"]["1week"]["samples"] == 2016
    assert cal["trdp"]["4h"]["min_distance"] <= cal["trdp"]["4h"]["median_distance"] <= cal["trdp"]["4h"]["b"]
    r1 = spdp.spdp_release(x, fs, cfg, cal["b_spdp"], np.random.default_rng(1), np.random.default_rng(2))
    r2 = spdp.spdp_release(x, fs, cfg, cal["b_spdp"], np.random.default_rng(1), np.random.default_rng(2))
    assert np.array_equal(r1["released"], r2["released"])  # seeded: reproducible
    assert r1["mechanism"].satisfies_proposition2
    assert np.all(r1["design"].reduction.gamma > 0)
    assert r1["released"].shape == x.shape


def test_too_short_data_is_rejected_naming_file_and_key(tmp_path, cfg):
    idx = pd.date_range("2019-01-07", periods=288 * 20, freq="5min")
    pd.DataFrame({"meter_id": "H1", "timestamp": idx.strftime("%Y-%m-%dT%H:%M:%S"), "kw": 1.0}).to_csv(
        tmp_path / "r.csv", index=False
    )
    pd.DataFrame({"meter_id": ["H1"], "customer_class": ["residential"]}).to_csv(tmp_path / "m.csv", index=False)
    with pytest.raises(MeterDataError, match=r"r\.csv.*2\.9 weeks.*spdp\.min_weeks"):
        spdp.load_series(tmp_path / "r.csv", tmp_path / "m.csv", cfg)
    with pytest.raises(MeterDataError, match="meter_id = 'X'"):
        spdp.load_series(tmp_path / "r.csv", tmp_path / "m.csv", {**cfg, "meter_id": "X"})
