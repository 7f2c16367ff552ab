"""Meter counts known before any job, and the papers' minima derived from their config (dpgrid.data.meter_counts)."""

from __future__ import annotations

import copy

import pandas as pd
import yaml
from hypothesis import given
from hypothesis import strategies as st

from dpgrid.data.meter_counts import MeterNeed, csv_meter_count, experiment_meter_count, meter_minimum_problems
from dpgrid.papers.classdp.descriptor import meter_problems as classdp_meter_problems
from dpgrid.papers.dpkmeans.descriptor import meter_problems as dpkmeans_meter_problems
from dpgrid.papers.dpkmeans.opf.minimum import opf_meter_problems
from tests.helpers.repo import REPO

CONFIG = yaml.safe_load((REPO / "config" / "config.yaml").read_text())


def _csv(path, ids, rows_per_meter=3):
    frame = pd.DataFrame(
        {
            "meter_id": [m for m in ids for _ in range(rows_per_meter)],
            "timestamp": [f"2020-03-02 0{h}:00:00" for _ in ids for h in range(rows_per_meter)],
            "kw": 0.5,
        }
    )
    frame.to_csv(path, index=False)
    return path


def test_csv_count_distinct_ids_na_like_kept_and_capped(tmp_path):
    path = _csv(tmp_path / "r.csv", ["NA", "nan", "M3", "M4", "M5"])
    assert csv_meter_count(path) == 5
    assert csv_meter_count(path, cap=2) >= 2
    assert csv_meter_count(tmp_path / "missing.csv") is None
    (tmp_path / "bad.csv").write_text("a,b\n1,2\n")
    assert csv_meter_count(tmp_path / "bad.csv") is None  # the meter_data job names the problem


def test_counts_per_source():
    assert experiment_meter_count({"source": "uci_household", "pseudo_meters": None})[0] == 1
    assert experiment_meter_count({"source": "uci_household", "pseudo_meters": 20})[0] == 20
    assert experiment_meter_count({"source": "uci_eld", "n_meters": 7})[0] == 7
    assert experiment_meter_count({"source": "synthetic", "n_residential": 3, "n_commercial": 1})[0] == 4
    assert experiment_meter_count({"source": "csv", "readings": "x.csv", "pseudo_meters": 6})[0] == 6
    assert experiment_meter_count({"source": "dpkmeans_standin", "n_residential": 3})[0] is None


def _with_csv(tmp_path, experiment, n_meters, overrides):
    cfg = copy.deepcopy(CONFIG)
    path = _csv(tmp_path / f"{experiment}_{n_meters}.csv", [f"M{i}" for i in range(n_meters)], 1)
    cfg["data"]["experiments"][experiment] = {"source": "csv", "readings": str(path)}
    for section, values in overrides.items():
        cfg[section].update(values)
    return cfg


@given(n_meters=st.integers(1, 12), n_clusters=st.integers(1, 12))
def test_classdp_needs_more_meters_than_clusters(tmp_path_factory, n_meters, n_clusters):
    tmp = tmp_path_factory.mktemp("c")
    cfg = _with_csv(tmp, "classdp_forecast", n_meters, {})
    cfg["classdp"]["forecast"]["n_clusters"] = n_clusters
    problems = classdp_meter_problems(cfg)
    assert bool(problems) == (n_meters <= n_clusters)
    if problems:
        assert f"classdp.forecast.n_clusters = {n_clusters} needs at least {n_clusters + 1} meters" in problems[0]
        assert f"hold {n_meters}" in problems[0] and "data.experiments.classdp_forecast" in problems[0]


@given(n_meters=st.integers(1, 12), k=st.integers(1, 12))
def test_dpkmeans_needs_more_meters_than_k(tmp_path_factory, n_meters, k):
    tmp = tmp_path_factory.mktemp("d")
    cfg = _with_csv(tmp, "dpkmeans", n_meters, {"dpkmeans": {"k": k}})
    problems = dpkmeans_meter_problems(cfg)
    assert bool(problems) == (n_meters <= k)
    if problems:
        assert f"dpkmeans.k = {k} needs at least {k + 1} meters" in problems[0] and f"hold {n_meters}" in problems[0]


def test_opf_needs_one_meter_per_load_bus_of_each_feeder(tmp_path):
    cfg = _with_csv(tmp_path, "dpkmeans", 84, {})
    assert opf_meter_problems(cfg, "case141") == []  # 84 load buses
    (msg,) = opf_meter_problems(cfg, "ieee123")  # 85
    assert "grid.experiment.load_buses = 'loaded' needs at least 85 meters" in msg and "hold 84" in msg
    assert "results/dpkmeans/claims.csv" in msg
    cfg["grid"]["experiment"]["load_buses"] = "all_nonslack"
    assert "needs at least 140 meters" in opf_meter_problems(cfg, "case141")[0]


def test_unknown_counts_refuse_nothing():
    cfg = copy.deepcopy(CONFIG)
    cfg["data"]["experiments"]["dpkmeans"] = {"source": "csv", "readings": "no/such/file.csv"}
    assert meter_minimum_problems(cfg, "dpkmeans.data_source", [MeterNeed("dpkmeans.k", 6, 7, "k")]) == []
    assert meter_minimum_problems(CONFIG, "dpkmeans.data_source", [MeterNeed("dpkmeans.k", 6, 7, "k")]) == []
