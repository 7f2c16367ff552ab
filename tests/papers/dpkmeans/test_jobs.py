"""dpkmeans experiment helpers: 25-point daily profiles, the outlier rule on meter data, the contract files."""

import numpy as np
import pandas as pd
import pytest

from dpgrid.data.meter import MeterData
from dpgrid.data.profiles import PROFILE_HOURS as HOURS
from dpgrid.data.profiles import daily_profiles
from dpgrid.mechanisms.dp_kmeans_baselines import knn_outliers


def _meter_data(days=3, step_minutes=60):
    ts = pd.date_range("2020-01-06", periods=days * 24 * 60 // step_minutes, freq=f"{step_minutes}min")
    rows = []
    for m, scale in (("A", 1.0), ("B", 2.0)):
        for _i, t in enumerate(ts):
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


# ---- Fig. 9: one job per privacy budget (dpkmeans_fig9_accuracy), merged by dpkmeans_fig9_tables ----------


def _fig9_config():
    """Overrides of config/quick.yaml: K = 3, three Fig. 9 budgets, few repeats."""
    return {
        "seed": 3,
        "dpkmeans": {
            "k": 3,
            "kmeans": {"n_init": 2, "max_iter": 100},
            "fig9": {"eps_grid": [1.0, 10.0, 0.25], "n_repeats": 2, "left_n": 5, "right_n": 5, "right_eps_min": 2.0},
        },
    }


@pytest.fixture(scope="module")
def fig9_clustering(tmp_path_factory, rule_job):
    """A small clustering.npz (80 residential + 2 commercial synthetic meters, K = 3)."""
    from dpgrid.core.io import write_table
    from dpgrid.data.synthetic import synthesize_meter_data
    from dpgrid.papers.dpkmeans.stages.clustering import clustering_job

    out = tmp_path_factory.mktemp("fig9")
    write_table(
        daily_profiles(synthesize_meter_data(80, 2, "2019-01-07", 4, 60, np.random.default_rng(0))),
        out / "profiles.csv",
    )
    clustering_job(
        rule_job(
            "dpkmeans_clustering",
            config=_fig9_config(),
            input=dict(profiles=out / "profiles.csv"),
            output=dict(npz=out / "c.npz", table=out / "s.csv", outliers=out / "o.csv"),
        )
    )
    return out / "c.npz"


def _fig9_points(rule_job, cfg, npz, out, labels):
    from dpgrid.papers.dpkmeans.stages.fig9 import fig9_accuracy_job

    out.mkdir(parents=True, exist_ok=True)
    for e in labels:
        fig9_accuracy_job(
            rule_job(
                "dpkmeans_fig9_accuracy",
                wildcards={"eps": e},
                config=cfg,
                input=dict(npz=npz),
                output=dict(accuracy=out / f"acc_{e}.csv", info=out / f"info_{e}.json"),
            )
        )


def _fig9_merge(rule_job, cfg, npz, out, labels):
    from dpgrid.papers.dpkmeans.stages.fig9 import fig9_tables_job

    fig9_tables_job(
        rule_job(
            "dpkmeans_fig9_tables",
            config=cfg,
            input=dict(
                npz=npz, accuracy=[out / f"acc_{e}.csv" for e in labels], info=[out / f"info_{e}.json" for e in labels]
            ),
            output=dict(
                accuracy=out / "fig9_accuracy.csv",
                privacy=out / "fig9_privacy.csv",
                labels=out / "fig9_labels.csv",
                info=out / "fig9_info.json",
            ),
        )
    )


def test_fig9_points_merge_in_grid_order_whatever_order_they_ran(fig9_clustering, tmp_path, rule_job):
    import hashlib

    from dpgrid.core.io import read_json, read_table
    from dpgrid.core.sweeps import sweep_label

    cfg = _fig9_config()
    labels = [sweep_label(e) for e in cfg["dpkmeans"]["fig9"]["eps_grid"]]
    assert labels == ["1", "10", "0.25"]
    for name, order in (("a", labels), ("b", labels[::-1])):
        _fig9_points(rule_job, cfg, fig9_clustering, tmp_path / name, order)
        _fig9_merge(rule_job, cfg, fig9_clustering, tmp_path / name, labels)
    for f in sorted((tmp_path / "a").iterdir()):
        assert (
            hashlib.sha256(f.read_bytes()).digest() == hashlib.sha256((tmp_path / "b" / f.name).read_bytes()).digest()
        ), f.name
    acc = read_table(tmp_path / "a" / "fig9_accuracy.csv")
    methods = ["colored", "white", "yu2016", "balcan2017", "ni2021"]
    assert acc["eps_c"].tolist() == [e for e in (1.0, 10.0, 0.25) for _ in acc["method"].unique()]
    assert acc["method"].tolist()[:5] == methods
    # the merged table is the per-point tables stacked, and each budget has its own stream
    parts = pd.concat([read_table(tmp_path / "a" / f"acc_{e}.csv") for e in labels], ignore_index=True)
    pd.testing.assert_frame_equal(acc, parts)
    g = acc.set_index(["method", "eps_c"])
    # colored noise of trace gamma_c(eps) * unit trace: smaller eps, more noise, larger expected loss
    assert (
        g.loc[("colored", 0.25), "expected_loss"]
        > g.loc[("colored", 1.0), "expected_loss"]
        > g.loc[("colored", 10.0), "expected_loss"]
    )
    assert (g.xs("colored")["noise_trace"] < g.xs("white")["noise_trace"]).all()
    info = read_json(tmp_path / "a" / "fig9_info.json")
    assert set(info) == {"rho_colored"}
    assert info == {k: read_json(tmp_path / "a" / "info_10.json")[k] for k in info}


def test_fig9_streams_are_keyed_by_the_budget(fig9_clustering, tmp_path, rule_job):
    """A budget's draws do not depend on which other budgets are in the grid."""
    from dpgrid.core.io import read_table

    cfg = _fig9_config()
    _fig9_points(rule_job, cfg, fig9_clustering, tmp_path / "full", ["10"])
    other = _fig9_config()
    other["dpkmeans"]["fig9"]["eps_grid"] = [10.0]
    _fig9_points(rule_job, other, fig9_clustering, tmp_path / "alone", ["10"])
    pd.testing.assert_frame_equal(
        read_table(tmp_path / "full" / "acc_10.csv"), read_table(tmp_path / "alone" / "acc_10.csv")
    )
    other["seed"] = 4
    _fig9_points(rule_job, other, fig9_clustering, tmp_path / "seed4", ["10"])
    a, b = read_table(tmp_path / "full" / "acc_10.csv"), read_table(tmp_path / "seed4" / "acc_10.csv")
    assert (a["mean_loss"] != b["mean_loss"]).all()
    np.testing.assert_allclose(a["expected_loss"], b["expected_loss"])  # closed form, no draws


def test_fig9_bad_wildcard_and_mismatched_merge_inputs_name_the_problem(fig9_clustering, tmp_path, rule_job):
    import json

    cfg = _fig9_config()
    with pytest.raises(KeyError, match=r"no job of rule dpkmeans_fig9_accuracy"):  # not a budget of the grid
        _fig9_points(rule_job, cfg, fig9_clustering, tmp_path, ["2"])
    labels = ["1", "10", "0.25"]
    _fig9_points(rule_job, cfg, fig9_clustering, tmp_path, labels)
    with pytest.raises(ValueError, match=r"info_10\.json: field eps_c = 10\.0, expected 1\.0"):
        _fig9_merge(rule_job, cfg, fig9_clustering, tmp_path, ["10", "1", "0.25"])
    with pytest.raises(ValueError, match="2 accuracy and 2 info files for the 3 entries"):
        _fig9_merge(rule_job, cfg, fig9_clustering, tmp_path, labels[:2])
    info = tmp_path / "info_1.json"
    changed = json.loads(info.read_text())
    changed["rho_colored"] = 0.5
    info.write_text(json.dumps(changed))
    with pytest.raises(ValueError, match="field rho_colored differs between the privacy budgets"):
        _fig9_merge(rule_job, cfg, fig9_clustering, tmp_path, labels)
    assert not (tmp_path / "fig9_accuracy.csv").exists()


def test_mds_subsample_keeps_marked_profiles_and_fills_with_a_seeded_sample():
    from dpgrid.papers.dpkmeans.stages.mds import mds_subsample

    marked = np.zeros(1000, dtype=bool)
    marked[[3, 500, 998]] = True
    keep = mds_subsample(marked, 50, np.random.default_rng(7))
    assert len(keep) == 50 and len(set(keep)) == 50 and np.all(np.diff(keep) > 0)
    assert {3, 500, 998} <= set(keep.tolist())
    assert np.array_equal(keep, mds_subsample(marked, 50, np.random.default_rng(7)))  # seeded
    assert not np.array_equal(keep, mds_subsample(marked, 50, np.random.default_rng(8)))
    assert np.array_equal(mds_subsample(marked, 1000, np.random.default_rng(0)), np.arange(1000))  # no cap: all
    many = np.ones(10, dtype=bool)  # more marked profiles than places: a subset of them
    sub = mds_subsample(many, 4, np.random.default_rng(0))
    assert len(sub) == 4 and set(sub.tolist()) <= set(range(10))


def test_class_outlier_rule_refuses_data_without_customer_classes():
    from dpgrid.papers.dpkmeans.clustering import outlier_masks

    X = np.random.default_rng(0).normal(1.0, 0.1, (30, 25))
    cfg = {"method": "class", "n_neighbors": 5, "iqr_factor": 3.0}
    with pytest.raises(ValueError, match=r"dpkmeans\.outliers\.method = class .* 'unknown'.*method: knn"):
        outlier_masks(X, ["unknown"] * 30, cfg)
    # with classes, the class rule removes exactly the non-residential meters; the k-NN rule needs none
    cls = ["residential"] * 28 + ["commercial", "other"]
    assert outlier_masks(X, cls, cfg)["removed"].tolist() == [False] * 28 + [True, True]
    assert outlier_masks(X, ["unknown"] * 30, dict(cfg, method="knn"))["removed"].dtype == bool


# ---- privacy audits: rows of the one tail-audit schema (dpgrid.privacy.audit.tail_audit_row) ---------------


def test_audit_table_has_the_tail_audit_schema_and_the_bonferroni_level(fig9_clustering, tmp_path, rule_job):
    """The audit table is the paper's context columns then TAIL_AUDIT_COLUMNS (the same schema as classdp's audit
    tables); ``level`` is the per-test Bonferroni level 1 - alpha / m of its m audits; the exact calibration
    passes both the one-sided privacy test and the two-sided check of its exact tail; the Wishart mechanism's
    claimed delta = 0 is refuted (Pr(L = inf) = 1 - exp(-eps/3) > 0)."""
    from dpgrid.papers.dpkmeans.stages.audit import audit_job
    from dpgrid.privacy.audit import TAIL_AUDIT_COLUMNS

    audit = {"n_samples": 4000, "n_samples_labels": 2000, "n_samples_wishart": 200, "alpha": 0.01}
    job = rule_job(
        "dpkmeans_audit",
        config={**_fig9_config(), "dpkmeans": {**_fig9_config()["dpkmeans"], "audit": audit}},
        input=dict(npz=fig9_clustering),
        output=dict(table=tmp_path / "audit.csv"),
    )
    audit_job(job)
    a = pd.read_csv(tmp_path / "audit.csv")
    assert list(a.columns) == ["mechanism", "calibration", "pair", *TAIL_AUDIT_COLUMNS]
    au = job.params.cfg["audit"]
    m = 2 * len(au["centroid_budgets"]) + len(au["label_budgets"]) + 1
    assert m - len(au["label_budgets"]) <= len(a) <= m  # the label rows need a label-sensitive point
    np.testing.assert_allclose(a["level"], 1 - 0.01 / m, rtol=0, atol=1e-15)
    ex = a[a["calibration"] == "exact_pdp"]
    np.testing.assert_allclose(ex["exact_delta"], ex["claimed_delta"], rtol=1e-9)
    assert ex["claimed_delta_ge_ci_low"].all() and ex["exact_in_ci"].all()
    w = a[a["mechanism"] == "wishart_covariance"].iloc[0]
    assert w["claimed_delta"] == 0 and not w["claimed_delta_ge_ci_low"] and w["exact_in_ci"]
