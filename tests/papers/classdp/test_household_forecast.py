"""dpgrid.papers.classdp.household_forecast: the forecast class model as plain functions gives exactly the
model of the pipeline jobs (classdp_forecast_arma + classdp_forecast_model), which the stand-in's
calibration relies on; forecast error measures (dpgrid.models.forecast_metrics) against hand computations."""

import math

import numpy as np
import pytest

from dpgrid.core.seeds import job_rng
from dpgrid.data.meter import MeterData
from dpgrid.mechanisms.gaussian_class import load_class_model
from dpgrid.models.forecast_metrics import METRICS, forecast_errors
from dpgrid.papers.classdp.household_forecast import (
    ForecastSettings,
    HouseholdForecastError,
    build_forecast_model,
    forecast_origin,
)
from tests.papers.classdp.test_jobs import CFG, run_forecast_jobs


def test_library_model_equals_the_jobs_model(tmp_path, rule_job):
    readings, meters, out = run_forecast_jobs(tmp_path, rule_job)
    job = load_class_model(out["model"])

    md = MeterData.load(readings, meters)
    wide = md.wide()
    s = ForecastSettings.from_config(CFG["forecast"])
    fm = build_forecast_model(
        wide.to_numpy(float), 24, s, job_rng(7, "classdp", "forecast_kmeans"), names=list(wide.columns)
    )
    np.testing.assert_array_equal(fm.model.means, job.means)
    np.testing.assert_array_equal(fm.model.covs, job.covs)
    np.testing.assert_array_equal(fm.model.edges, job.edges)
    assert fm.model.labels == job.labels
    with np.load(out["model"]) as z:
        np.testing.assert_array_equal(fm.truth_kw, z["truth_kw"])
        np.testing.assert_array_equal(fm.cluster, z["cluster"])
        assert fm.origin == int(z["origin"])


def test_origin_errors():
    s = ForecastSettings(origin_hour=23.9, horizon=10, train_samples=24, seasonal_period_days=1)
    with pytest.raises(HouseholdForecastError, match="origin_hour"):
        forecast_origin(24 * 6, 24, s)
    s = ForecastSettings(origin_hour=12, horizon=2, train_samples=1000, seasonal_period_days=1)
    with pytest.raises(HouseholdForecastError, match="train_samples"):
        forecast_origin(24 * 6, 24, s)


def test_forecast_errors_by_hand():
    p = np.array([1.0, 2.0, 0.5, 4.0])
    q = np.array([1.5, 1.0, 0.5, 3.0])
    e = forecast_errors(q, p)
    sse = 0.25 + 1.0 + 0.0 + 1.0
    assert set(METRICS) <= set(e)
    assert e["nmse_sum_p2"] == pytest.approx(sse / np.sum(p**2))
    assert e["mse_over_sum_p2"] == pytest.approx(sse / 4 / np.sum(p**2))
    assert e["nmse_mean2"] == pytest.approx(sse / 4 / np.mean(p) ** 2)
    assert e["nmse_var"] == pytest.approx(sse / np.sum((p - p.mean()) ** 2))
    assert e["mse_kw2"] == pytest.approx(sse / 4)
    assert e["mse_w2"] == pytest.approx(sse / 4 * 1e6) and e["mse_mw2"] == pytest.approx(sse / 4 * 1e-6)
    assert e["sse_kw2"] == pytest.approx(sse)
    lerr = np.log(q) - np.log(p)
    assert e["mse_log"] == pytest.approx(np.mean(lerr**2))
    assert e["nmse_log_kw"] == pytest.approx(np.sum(lerr**2) / np.sum(np.log(p) ** 2))
    assert e["nmse_log_w"] == pytest.approx(np.sum(lerr**2) / np.sum(np.log(1000 * p) ** 2))
    # unit conventions: log errors do not depend on the unit, the W normaliser does
    assert e["nmse_log_w"] < e["nmse_log_kw"]
    assert e["floored_truth"] == 0


def test_forecast_errors_expectation_over_draws_and_zero_truth():
    p = np.array([1.0, 0.0, 2.0])
    draws = np.array([[1.0, 0.1, 2.0], [2.0, 0.1, 2.0]])
    e = forecast_errors(draws, p, floor_kw=0.01)
    # mean of the per-draw measures
    assert e["mse_kw2"] == pytest.approx(np.mean([0.01 / 3, 1.01 / 3]))
    assert math.isfinite(e["mse_log"]) and e["floored_truth"] == 1
    assert e["mse_log"] == pytest.approx(np.mean([np.log(10) ** 2 / 3, (np.log(2) ** 2 + np.log(10) ** 2) / 3]))
    with pytest.raises(ValueError, match="finite"):
        forecast_errors(np.array([np.inf, 1.0, 1.0]), p)
