"""dpkmeans experiment helpers: 25-point daily profiles, the outlier rule on meter data, the contract files."""
import numpy as np
import pandas as pd
import pytest

from dpgrid.data.meter import MeterData
from dpgrid.experiments.dpkmeans import HOURS, daily_profiles
from dpgrid.mechanisms.dp_kmeans_baselines import knn_outliers


def _meter_data(days=3, step_minutes=60):
    ts = pd.date_range("2020-01-06", periods=days * 24 * 60 // step_minutes, freq=f"{step_minutes}min")
    rows = []
    for m, scale in (("A", 1.0), ("B", 2.0)):
        for i, t in enumerate(ts):
            rows.append((m, t, scale * (t.hour + 1) + 100 * t.day))
    r = pd.DataFrame(rows, columns=["meter_id", "timestamp", "kw"])
    return MeterData(r, pd.DataFrame({"meter_id": ["A", "B"], "customer_class": ["residential", "commercial"]}), "test")


def test_daily_profile_is_mean_of_midnight_to_midnight_windows():
    prof = daily_profiles(_meter_data())
    assert list(prof.columns) == ["meter_id", "customer_class"] + HOURS
    a = prof.set_index("meter_id").loc["A", HOURS].to_numpy(float)
    # windows: day 6 hours 0..23 + day 7 hour 0, and day 7 hours 0..23 + day 8 hour 0
    expect = np.array([(h + 1) + 100 * 6.5 for h in range(24)] + [1 + 100 * 7.5])
    np.testing.assert_allclose(a, expect)
    b = prof.set_index("meter_id").loc["B", HOURS].to_numpy(float)
    np.testing.assert_allclose(b[:24] - 100 * 6.5, 2 * (np.arange(24) + 1))


def test_daily_profile_averages_finer_steps_to_hours():
    p15 = daily_profiles(_meter_data(step_minutes=15))
    p60 = daily_profiles(_meter_data(step_minutes=60))
    np.testing.assert_allclose(p15[HOURS].to_numpy(float), p60[HOURS].to_numpy(float))


def test_daily_profile_needs_two_days():
    with pytest.raises(ValueError, match="at least 2 full days"):
        daily_profiles(_meter_data(days=1))


def test_outlier_rule_finds_commercial_meters_without_labels():
    from dpgrid.data.synthetic import synthesize_meter_data

    md = synthesize_meter_data(150, 3, "2019-01-07", 4, 60, np.random.default_rng(0))
    prof = daily_profiles(md)
    out = knn_outliers(prof[HOURS].to_numpy(float), 20, 3.0)
    com = (prof["customer_class"] == "commercial").to_numpy()
    assert out[com].all() and not out[~com].any()
