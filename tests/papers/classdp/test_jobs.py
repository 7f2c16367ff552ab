"""classdp forecast setting end to end on small data: seasonal log decomposition (eq. 61), ARMA
shards, k-means neighbourhoods, class model (eq. 57), mechanism job outputs, determinism."""

import hashlib

import numpy as np
import pandas as pd
import pytest

from dpgrid.data.meter import MeterData
from dpgrid.mechanisms.gaussian_class import load_class_model
from dpgrid.papers.classdp.paper import ClassdpConfigError
from dpgrid.papers.classdp.stages import forecast_model, release_analysis
from dpgrid.privacy.audit import TAIL_AUDIT_COLUMNS
from tests.helpers.repo import REPO

CFG = {
    "accuracy_budget_rule": "total",
    "delta_tolerance": 1e-8,
    "algorithm1": {"alpha0": 0.1, "alpha_min": 1e-8, "max_iter": 300, "rel_tol": 1e-6, "window": 50, "eig_floor": 1e-9},
    "audit": {"epsilons": [0.5], "samples": 2000, "level": 0.999},
    "attack": {"samples_per_label": 50},
    "forecast": {
        "data_source": "classdp_forecast",
        "log_floor_kw": 0.01,
        "seasonal_period_days": 1,
        "origin_hour": 12,
        "train_samples": 200,
        "conditioning_samples": 200,
        "horizon": 4,
        "past_hours": 6,
        "n_clusters": 2,
        "kmeans_n_init": 3,
        "arma": {
            "order": [1, 1],
            "method": "exact_ls",
            "optimizer": "trf",
            "retry_optimizer": "dogbox",
            "start": "css",
            "pacf_bound": 0.999,
            "root_margin": 1e-4,
            "tol": 1e-10,
            "maxiter": 300,
            "retry_maxiter": 0,
            "nonconverged_rule": "keep",
            "fallback_order": [1, 0],
            "shards": 2,
        },
        "rhos": [0.5],
        "epsilon_grid": {"start": 0.1, "stop": 1.0, "num": 4},
        "fig3_rho": 0.5,
        "fig3_epsilon": 0.5,
        "fig3_households": [0],
        "release_mse_draws": 10,
    },
}


def _meter_files(tmp_path, n=6, days=12, spd=24):
    """Hourly loads: per-household daily profile x AR(1) log-noise (simulated in the test)."""
    rng = np.random.default_rng(0)
    t = pd.date_range("2019-01-07", periods=days * spd, freq="h")
    rows = []
    for m in range(n):
        level = 0.5 + (m % 2)  # two groups of households
        prof = level * (1.0 + 0.5 * np.sin(2 * np.pi * np.arange(spd) / spd + m))
        e = np.zeros(t.size)
        for i in range(1, t.size):
            e[i] = 0.6 * e[i - 1] + 0.2 * rng.standard_normal()
        kw = np.tile(prof, days) * np.exp(e)
        rows.append(pd.DataFrame({"meter_id": f"H{m}", "timestamp": t, "kw": kw}))
    md = MeterData(
        pd.concat(rows, ignore_index=True),
        pd.DataFrame({"meter_id": [f"H{m}" for m in range(n)], "customer_class": "residential"}),
        "test",
    )
    md.save(tmp_path / "readings.csv", tmp_path / "meters.csv")
    return tmp_path / "readings.csv", tmp_path / "meters.csv"


#: config/quick.yaml overridden for the small test data (hourly, 6 households, ARMA(1,1))
OVERRIDES = {"seed": 7, "classdp": CFG}


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_forecast_jobs(tmp_path, rule_job):
    """The ARMA shards and the class-model job on the small meter files: (readings, meters, model outputs)."""
    readings, meters = _meter_files(tmp_path)
    for shard in (0, 1):
        forecast_model.forecast_arma_job(
            rule_job(
                "classdp_forecast_arma",
                wildcards={"shard": shard},
                config=OVERRIDES,
                input={"readings": readings, "meters": meters},
                output={"npz": tmp_path / f"a{shard}.npz", "fits": tmp_path / f"a{shard}.csv"},
            )
        )
    inp = {
        "readings": readings,
        "meters": meters,
        "npz": [tmp_path / "a0.npz", tmp_path / "a1.npz"],
        "fits": [tmp_path / "a0.csv", tmp_path / "a1.csv"],
    }
    out = {"model": tmp_path / "model.npz", "households": tmp_path / "hh.csv", "summary": tmp_path / "s.json"}
    forecast_model.forecast_model_job(rule_job("classdp_forecast_model", config=OVERRIDES, input=inp, output=out))
    return readings, meters, out


def test_forecast_pipeline_builds_a_valid_class_model(tmp_path, rule_job):
    readings, meters, out = run_forecast_jobs(tmp_path, rule_job)
    model = load_class_model(out["model"])
    hh = pd.read_csv(out["households"])
    assert model.n == 6 and model.k == 4
    # k-means separates the two load levels; neighbours = same cluster only
    assert set(hh["cluster"][hh["meter_id"].str[1:].astype(int) % 2 == 0]) != set(
        hh["cluster"][hh["meter_id"].str[1:].astype(int) % 2 == 1]
    )
    clusters = dict(zip(hh["meter_id"], hh["cluster"]))
    for i, j in model.edges:
        assert clusters[model.labels[i]] == clusters[model.labels[j]]
    # forecast mean = ARMA conditional mean + seasonal (daily) log mean: close to the log profile
    with np.load(out["model"]) as z:
        truth = np.log(z["truth_kw"])
    assert np.mean(np.abs(model.means - truth)) < 0.5
    for c in model.covs:
        assert np.all(np.diff(np.diag(c)) >= -1e-12)  # forecast uncertainty grows with the horizon

    # mechanism job at one rho: outputs exist, proposed <= white, deterministic bytes
    mech_out = {
        k: tmp_path / f"m_{k}.{ext}"
        for k, ext in (
            ("mechanisms", "npz"),
            ("curves", "csv"),
            ("audit", "csv"),
            ("attack", "csv"),
            ("j_history", "csv"),
            ("summary", "json"),
        )
    }
    mech = rule_job(
        "classdp_mechanism",
        wildcards={"setting": "forecast", "rho": "0.5"},
        config=OVERRIDES,
        input={"model": out["model"]},
        output=mech_out,
    )
    assert mech.params.rho == 0.5
    release_analysis.mechanism_job(mech)
    first = _digest(mech_out["curves"])
    cur = pd.read_csv(mech_out["curves"])
    w = cur[cur.mechanism == "white"].sort_values("epsilon")["delta"].to_numpy()
    p = cur[cur.mechanism == "proposed"].sort_values("epsilon")["delta"].to_numpy()
    assert np.all(p <= w + 1e-9)
    # the audit rows follow the one tail-audit schema (dpkmeans' audit table has the same columns after its context)
    audit = pd.read_csv(mech_out["audit"])
    assert list(audit.columns) == ["setting", "mechanism", "rho", "label", "neighbour", *TAIL_AUDIT_COLUMNS]
    assert (audit["claimed_delta"] == audit["exact_delta"]).all()  # the claim is the exact sup over edges
    assert audit["claimed_delta_ge_ci_low"].all() and audit["exact_in_ci"].all()
    release_analysis.mechanism_job(mech)
    assert _digest(mech_out["curves"]) == first
    with pytest.raises(KeyError, match="no job of rule classdp_mechanism"):  # rho not in the grid: no such job
        rule_job("classdp_mechanism", wildcards={"setting": "forecast", "rho": "0.7"}, config=OVERRIDES)


def test_origin_errors_name_the_config_key():
    fc = dict(CFG["forecast"], origin_hour=23.9, horizon=10)
    with pytest.raises(ClassdpConfigError, match="origin_hour"):
        forecast_model._forecast_origin(24 * 6, 24, fc, "readings.csv")


def test_similarity_sweep_configured_empty_writes_an_empty_table(tmp_path, rule_job):
    """classdp.forecast.similarity_sweep.similarities: [] (allowed by the schema) plans no sweep point; the merge
    job then writes the table's header only (it failed with 'No objects to concatenate' before)."""
    from dpgrid.papers.classdp.stages.similarity_sweep import SIMILARITY_SWEEP_COLUMNS, similarity_sweep_job

    empty = {"classdp": {"forecast": {"similarity_sweep": {"similarities": []}}}}
    out = tmp_path / "similarity_sweep.csv"
    similarity_sweep_job(
        rule_job("classdp_similarity_sweep", config=empty, input={"points": []}, output={"table": out})
    )
    table = pd.read_csv(out)
    assert table.empty and list(table.columns) == SIMILARITY_SWEEP_COLUMNS


def test_similarity_sweep_point_in_parts_equals_one_job(tmp_path, rule_job):
    """The sweep point split into jobs (no-noise part + one part per rho, each written and read back as CSV, then
    merged by the point job) writes the bytes of the one-job computation (calibration.similarity_rows) on the same
    class model (issue 27: the sweep must stop being one long job without changing its table)."""
    from dpgrid.core.io import write_table
    from dpgrid.core.sweeps import sweep_label
    from dpgrid.mechanisms.gaussian_class import save_class_model
    from dpgrid.papers.classdp.calibration import similarity_rows
    from dpgrid.papers.classdp.stages.similarity_sweep import similarity_sweep_part_job, similarity_sweep_point_job
    from dpgrid.papers.classdp.stages.synthetic_model import synthetic_model

    model = synthetic_model(4, 2, 1.0, 2.0, np.random.default_rng(3))
    path = tmp_path / "model.npz"
    save_class_model(path, model)
    sim = "0.9"
    parts = []
    for part in ["no_noise", *[f"rho{sweep_label(r)}" for r in point_rhos()]]:
        out = tmp_path / f"{part}.csv"
        job = rule_job(
            "classdp_similarity_sweep_part",
            wildcards={"similarity": sim, "part": part},
            input={"model": path},
            output={"table": out},
        )
        similarity_sweep_part_job(job)
        parts.append(out)
    merged = tmp_path / "point.csv"
    similarity_sweep_point_job(
        rule_job(
            "classdp_similarity_sweep_point",
            wildcards={"similarity": sim},
            input={"model": path, "parts": parts},
            output={"table": merged},
        )
    )
    cfg = job.params.cfg
    direct = tmp_path / "direct.csv"
    write_table(
        similarity_rows(0.9, model, cfg, rhos=point_rhos(), eps=cfg["forecast"]["similarity_sweep"]["epsilons"]),
        direct,
    )
    assert merged.read_bytes() == direct.read_bytes()
    assert len(pd.read_csv(merged)) == (1 + 2 * len(point_rhos())) * len(
        cfg["forecast"]["similarity_sweep"]["epsilons"]
    )


def point_rhos() -> list[float]:
    """classdp.forecast.rhos of the quick configuration (the rho parts the plan has)."""
    from dpgrid.core.config import load_config_file

    quick = load_config_file(REPO / "config" / "quick.yaml")
    return [float(r) for r in quick["classdp"]["forecast"]["rhos"]]


def _forecast_with_shards(tmp_path, rule_job, n_meters, shards, n_clusters=2):
    import copy

    cfg = copy.deepcopy(CFG)
    cfg["forecast"]["arma"]["shards"] = shards
    cfg["forecast"]["n_clusters"] = n_clusters
    over = {"seed": 7, "classdp": cfg}
    tmp_path.mkdir(parents=True, exist_ok=True)
    readings, meters = _meter_files(tmp_path, n=n_meters, days=10)
    inp = {"readings": readings, "meters": meters, "npz": [], "fits": []}
    for shard in range(shards):
        out = {"npz": tmp_path / f"a{shard}.npz", "fits": tmp_path / f"a{shard}.csv"}
        job = rule_job(
            "classdp_forecast_arma",
            wildcards={"shard": shard},
            config=over,
            input={"readings": readings, "meters": meters},
            output=out,
        )
        forecast_model.forecast_arma_job(job)
        inp["npz"].append(out["npz"])
        inp["fits"].append(out["fits"])
    out = {"model": tmp_path / "model.npz", "households": tmp_path / "hh.csv", "summary": tmp_path / "s.json"}
    forecast_model.forecast_model_job(rule_job("classdp_forecast_model", config=over, input=inp, output=out))
    return out


@pytest.mark.parametrize("n_meters,shards", [(3, 5), (3, 8)])
def test_more_shards_than_households_gives_the_model_of_one_shard(tmp_path, rule_job, n_meters, shards):
    """Fewer households than forecast.arma.shards: the empty shards write their table's header alone and the
    class model is the one a single shard builds (byte for byte: sharding splits the work, not the result)."""
    many = _forecast_with_shards(tmp_path / "many", rule_job, n_meters, shards)
    one = _forecast_with_shards(tmp_path / "one", rule_job, n_meters, 1)
    assert _digest(many["households"]) == _digest(one["households"])
    assert _digest(many["model"]) == _digest(one["model"])
    empty = pd.read_csv(tmp_path / "many" / f"a{shards - 1}.csv")
    assert len(empty) == 0 and list(empty.columns)[:2] == ["meter_id", "status"]


@pytest.mark.parametrize("n_meters", [1, 2])
def test_no_cluster_of_two_names_the_key_and_the_minimum(tmp_path, rule_job, n_meters):
    """n_clusters >= households: every cluster a singleton (or empty), so the class mechanism has no neighbours."""
    with pytest.raises(
        ClassdpConfigError,
        match=rf"classdp\.forecast\.n_clusters = 2 leaves no cluster of two among the {n_meters} households.*at least 3",
    ):
        _forecast_with_shards(tmp_path, rule_job, n_meters, 8)
