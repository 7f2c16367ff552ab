"""dpkmeans claims and outlier handling: preconditions make a check `not comparable` instead of passing vacuously;
the stand-in's inputs are `calibration target`; no row is dropped; the class / k-NN outlier methods."""

import json

import numpy as np
import pandas as pd
import pytest

from dpgrid.core.claims import read_claims
from dpgrid.core.io import write_table
from dpgrid.data.profiles import PROFILE_HOURS as HOURS
from dpgrid.data.profiles import daily_profiles
from dpgrid.mechanisms.dp_kmeans_baselines import knn_outliers
from dpgrid.papers.dpkmeans.fidelity import exact_delta_rows
from dpgrid.privacy.audit import tail_audit_row
from dpgrid.privacy.blackbox_audit import AUDIT_COLUMNS

STANDIN = {
    "source": "dpkmeans_standin",
    "start": "2019-01-07",
    "days": 28,
    "step_minutes": 60,
    "n_residential": 1409,
    "n_commercial": 7,
    "small_clusters": [8, 12],
    "separation": 1.748,
}
REAL = {"source": "csv", "start": "2019-01-07", "days": 28, "step_minutes": 60, "readings": "r.csv", "meters": None}


def _inputs(
    d,
    *,
    n_commercial=7,
    n_removed=7,
    n_knn=13,
    width_ratio=2.5,
    label_audit=True,
    colored_count=2000,
    sizes="656 441 168 126 11 7",
    P=1416,
    P_clean=1409,
    audit_verdicts=("holds",),
):
    """Minimal result tables of a dpkmeans run (the columns the claims job reads)."""
    sens = pd.DataFrame(
        [
            {
                "dataset": "with_outliers",
                "P": P,
                "d": 25,
                "cluster_sizes": "1031 360 11 7 5 2",
                "delta_c": 7.2,
                "n_commercial_total": n_commercial,
                "n_removed_outliers": n_removed,
                "n_knn_flagged": n_knn,
                "n_knn_commercial": min(n_knn, n_commercial),
                "knn_exact_factor_lo": 4.1,
                "knn_exact_factor_hi": 5.2,
            },
            {
                "dataset": "without_outliers",
                "P": P_clean,
                "d": 25,
                "cluster_sizes": sizes,
                "delta_c": 2.13,
                "n_commercial_total": n_commercial,
                "n_removed_outliers": n_removed,
                "n_knn_flagged": n_knn,
                "n_knn_commercial": min(n_knn, n_commercial),
                "knn_exact_factor_lo": 4.1,
                "knn_exact_factor_hi": 5.2,
            },
        ]
    )
    files = {"sensitivity": d / "sensitivity.csv"}
    write_table(sens, files["sensitivity"])
    acc = pd.DataFrame(
        [
            {"method": m, "eps_c": e, "mean_loss": (0.001 if m == "colored" else 1.0) / e}
            for m in ("colored", "white", "yu2016", "balcan2017", "ni2021")
            for e in (1.0, 10.0)
        ]
    )
    files["accuracy"] = d / "acc.csv"
    write_table(acc, files["accuracy"])
    js = {
        "synthetic": {
            "cov_mechanism": "wishart",
            "eps_w": 30.0,
            "delta_w": 0.99995,
            "row_bound": 1.0,
            "alpha": 15.0,
            "debias_wishart": True,
            "mean_coverage": 0.998,
            "mean_iou": 0.4,
            "median_width_ratio": width_ratio,
            "negative_share_synthetic": 0.11,
            "negative_share_true": 0.0,
        },
        "pitfall": pitfall_info(0.75, 0.3, 0.23),
        "gm_info": {"P": 1000, "K": 6},
        "release": {"eps_total": 60.0, "delta_total": 0.2},
    }
    for k, v in js.items():
        files[k] = d / f"{k}.json"
        files[k].write_text(json.dumps(v))
    bic = pd.DataFrame(
        [
            {"cluster": k, "hour": h, "n": n, "distribution": dist, "bic": b, "winner": w}
            for k, n in ((0, 300), (1, 8))
            for h in range(3)
            for dist, b, w in (("lognorm", 10.0, True), ("gamma", 11.0, False))
        ]
    )
    files["bic"] = d / "bic.csv"
    write_table(bic, files["bic"])
    # audit rows through the one schema (dpgrid.privacy.audit.tail_audit_row), 10,000 draws at level 0.999:
    # 2,000 exceedances give [0.187, 0.213] around 0.2; 0 give [0, 0.00076]; 10,000 give [0.99924, 1]
    audit = dict(samples=10_000, level=0.999, pair="remove point 3")
    rows = [
        tail_audit_row(
            **audit,
            calibration=c,
            mechanism="colored_centroids",
            epsilon=30.0,
            claimed_delta=0.2,
            exact_delta=0.2 if c == "exact_pdp" else 1.0,
            count=colored_count,
        )
        for c in ("exact_pdp", "paper_eq13")
    ]
    if label_audit:
        rows.append(
            tail_audit_row(
                **audit,
                calibration="theorem4",
                mechanism="modulo_labels",
                epsilon=30.0,
                claimed_delta=0.0,
                exact_delta=0.0,
                count=0,
            )
        )
    rows.append(
        tail_audit_row(
            **audit,
            calibration="jiang2016",
            mechanism="wishart_covariance",
            epsilon=30.0,
            claimed_delta=0.0,
            exact_delta=0.99995,
            count=10_000,
        )
    )
    files["audit"] = d / "audit.csv"
    write_table(pd.DataFrame(rows), files["audit"])
    var = pd.DataFrame(
        [
            {
                "figure": "fig9",
                "dataset": "without_outliers",
                "variant": v,
                "method": m,
                "eps_c": e,
                "delta_c": 2.13,
                "expected_loss": (0.001 if m == "colored" else 1.0) / e,
            }
            for v in ("ours", "paper")
            for m in ("colored", "white")
            for e in (1.0, 10.0)
        ]
    )
    files["variants"] = d / "variants.csv"
    write_table(var, files["variants"])
    files["exact_delta"] = d / "exact.csv"
    write_table(
        pd.DataFrame(exact_delta_rows([("fig8 release", 30.0, 0.2), ("fig9 centre", 1.0, 0.01)])), files["exact_delta"]
    )
    sweep = pd.DataFrame(
        [
            {
                "axis": a,
                "cov_mechanism": m,
                "debias": True,
                "delta_w": 1.0,
                "eps_w": e,
                "mean_iou": iou,
                "neg_synthetic": ng,
                "neg_true": 0.0,
                "row_bound": 1.0,
                "alpha": 15.0,
                "rows_clipped": 0.01,
            }
            for a, m, e, iou, ng in (
                ("reference", "nonprivate", np.inf, 0.8, 0.007),
                ("eps_w", "wishart", 30.0, 0.4, 0.11),
                ("eps_w", "wishart", 100.0, 0.6, 0.04),
                ("eps_w", "wishart", 1000.0, 0.74, 0.009),
            )
        ]
    )
    files["sweep"] = d / "sweep.csv"
    write_table(sweep, files["sweep"])
    files["commercial_sweep"] = d / "csweep.csv"
    write_table(
        pd.DataFrame({"commercial_scale": [1.0, 2.0], "commercial_mean_kw": [22.0, 44.0], "delta_c": [7.2, 74.0]}),
        files["commercial_sweep"],
    )
    files["standin_draws"] = d / "draws.csv"
    write_table(pd.DataFrame({"delta_c": [1.1, 1.2, 5.0]}), files["standin_draws"])
    for name, table in figure_tables(n_commercial=n_commercial, n_knn=n_knn).items():
        files[name] = d / f"{name}.csv"
        write_table(table, files[name])
    files["privacy_audits"] = d / "privacy_audits.csv"
    row = dict.fromkeys(AUDIT_COLUMNS, 0.0)
    row.update(paper="dpkmeans", mechanism="colored_centroids", setting="s", pair="p", attack="a")
    write_table(pd.DataFrame([{**row, "verdict": v} for v in audit_verdicts]), files["privacy_audits"])
    return files


def pitfall_info(noisy, filtered, flat, readings=((1, 5.0, 0.35), (60, 300.0, 0.25))):
    """fig3_info.json of the pitfall job: the stated reading's errors and one row per plausible reading."""
    return {
        "sigma": 0.75,
        "order": 1,
        "window_hours": 300.0,
        "window": 301,
        "step_minutes": 60.0,
        "rmse_noisy": noisy,
        "rmse_filtered": filtered,
        "rmse_flat": flat,
        "readings": [
            {
                "paper_step_minutes": m,
                "window_hours": h,
                "window_samples": int(h) | 1,
                "rmse_noisy": noisy,
                "rmse_flat": flat,
                "rmse_filtered": f,
            }
            for m, h, f in readings
        ],
    }


def figure_tables(*, n_commercial=7, n_knn=13, seed=0):
    """The Figs. 5-7 and 10 tables the claims read (gm_points/centroids, fig6_*, mds, outliers, profiles_true)."""
    rng = np.random.default_rng(seed)
    cen = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    lab = np.repeat(np.arange(3), 50)
    xy = cen[lab] + rng.standard_normal((150, 2))
    xy[0] = [5.0, 0.0]  # between clusters 0 and 1: the one point of L, its label changed
    gm = pd.DataFrame({"x": xy[:, 0], "y": xy[:, 1], "label": lab, "noisy_label": lab, "in_L": False})
    gm.loc[0, ["noisy_label", "in_L"]] = [1, True]
    eps = [0.5, 1.0, 5.0]
    variance = pd.DataFrame(
        [{"eps_c": e, "noise_variance": v, "delta_c_exact": float(np.exp(-e * v))} for e in eps for v in (0.1, 1.0)]
    )
    noise = pd.DataFrame(
        [
            {"eps_c": e, "delta_c": dc, "calibration": c, "noise_variance": 1.0 / e**2, "expected_accuracy_loss": 0.1}
            for e in eps
            for dc in (1e-3, 1e-2)
            for c in ("exact_pdp", "paper_eq13")
        ]
    )
    labels = pd.DataFrame(
        [{"eps_l": e, "delta_1": k, "expected_error_pct": k / (k + e)} for e in (1, 5) for k in (1, 2, 3)]
    )
    n_res = 300
    pts = rng.standard_normal((n_res + n_commercial, 2))
    pts[n_res:] += 40.0  # the commercial meters: far out
    mds = pd.DataFrame(
        {
            "dataset": "with_outliers",
            "kind": "point",
            "label": 0,
            "x": pts[:, 0],
            "y": pts[:, 1],
            "in_L": False,
            "noisy_label": 0,
            "is_outlier": [False] * n_res + [True] * n_commercial,
        }
    )
    ids = [f"R{i:04d}" for i in range(n_res)] + [f"C{i:02d}" for i in range(n_commercial)]
    knn = [False] * n_res + [True] * n_commercial
    for i in range(max(n_knn - n_commercial, 0)):
        knn[i] = True
    outliers = pd.DataFrame(
        {
            "meter_id": ids,
            "customer_class": ["residential"] * n_res + ["commercial"] * n_commercial,
            "is_outlier": [False] * n_res + [True] * n_commercial,
            "knn_outlier": knn,
            "knn_factor": 0.0,
        }
    )
    big = np.exp(rng.standard_normal((200, 25)))  # log-normal: heavy tailed
    small = rng.uniform(0.5, 1.5, (14, 25))  # two clusters of 8 and 6 homes < 25 hours (the paper's two), light tailed
    prof = pd.DataFrame(np.vstack([big, small]), columns=[f"h{h:02d}" for h in range(25)])
    prof.insert(0, "cluster", [0] * 200 + [1] * 8 + [2] * 6)
    prof.insert(0, "profile_id", [f"P{i}" for i in range(214)])
    return {
        "gm_points": gm,
        "gm_centroids": pd.DataFrame({"cluster": range(3), "x": cen[:, 0], "y": cen[:, 1]}),
        "fig6_variance": variance,
        "fig6_noise": noise,
        "fig6_labels": labels,
        "mds": mds,
        "outliers": outliers,
        "profiles_true": prof,
    }


def _claims(rule_job, tmp_path, data, peers_enabled=None, **kw):
    from snakemake.iocontainers import Namedlist

    from dpgrid.core.pipeline import Job
    from dpgrid.papers.dpkmeans.claims import claims_job

    files = _inputs(tmp_path, **kw)
    base = rule_job("dpkmeans_claims")
    peers = base.params.peers_enabled if peers_enabled is None else peers_enabled
    params = Namedlist(fromdict={"cfg": base.params.cfg, "data": data, "peers_enabled": peers})
    out = tmp_path / "claims.csv"
    claims_job(
        Job(
            rule="dpkmeans_claims",
            input=Namedlist(fromdict={k: str(v) for k, v in files.items()}),
            output=Namedlist(fromdict={"claims": str(out)}),
            params=params,
            wildcards=Namedlist(),
        )
    )
    return {c.claim_id: c for c in read_claims(out)}


def test_stand_in_inputs_are_calibration_targets_and_predictions_are_compared(rule_job, tmp_path):
    c = _claims(rule_job, tmp_path, STANDIN)
    for cid in ("dpkmeans-data-counts", "dpkmeans-small-clusters", "dpkmeans-delta-c-clean"):
        assert c[cid].verdict == "calibration target", cid
    assert (
        c["dpkmeans-delta-c-outliers"].verdict == "differs"
        and "commercial_sweep" in c["dpkmeans-delta-c-outliers"].note
    )
    assert c["dpkmeans-outliers-removed"].verdict == "differs" and "[4.1, 5.2)" in c["dpkmeans-outliers-removed"].note
    # 13 flagged where 7 were removed: not the same points
    assert c["dpkmeans-knn-detects-commercial"].verdict == "differs"
    assert "1.1-5" in c["dpkmeans-delta-c-clean"].note
    for cid in (
        "dpkmeans-fig5-setup",
        "dpkmeans-fig5-changed-labels-in-L",
        "dpkmeans-fig5-L-on-periphery",
        "dpkmeans-fig6-privacy-needs-budget",
        "dpkmeans-fig6-accuracy-needs-budget",
        "dpkmeans-fig6-errors-grow-with-sensitivity",
        "dpkmeans-fig7-clear-outliers",
        "dpkmeans-fig10-heavy-tails",
    ):
        assert c[cid].verdict == "reproduced", (cid, c[cid])
    (tmp_path / "same").mkdir()
    same = _claims(rule_job, tmp_path / "same", STANDIN, n_knn=7)
    assert same["dpkmeans-knn-detects-commercial"].verdict == "reproduced"
    # a band 2.5x as wide as the true one covers it trivially
    assert c["dpkmeans-fig11-band-coverage"].verdict == "not comparable"
    neg = c["dpkmeans-fig11-negative-share"]
    assert neg.verdict == "differs" and "eps_w = 1000" in neg.note and "0.70 %" in neg.note
    assert c["dpkmeans-fig11-band-iou"].verdict == "differs" and "synthetic_sweep" in c["dpkmeans-fig11-band-iou"].note
    assert all(x.note for x in c.values() if x.verdict == "differs")


def test_no_commercial_meters_makes_the_outlier_claims_not_comparable(rule_job, tmp_path):
    """The vacuous pass of the issue: '0 removed, 0 commercial' must not read as reproduced."""
    c = _claims(rule_job, tmp_path, REAL, n_commercial=0, n_removed=0, n_knn=0, P=100, P_clean=100)
    for cid in (
        "dpkmeans-outliers-removed",
        "dpkmeans-knn-detects-commercial",
        "dpkmeans-delta-c-outliers",
        "dpkmeans-delta-c-drop",
    ):
        assert c[cid].verdict == "not comparable", cid
        assert "precondition" in c[cid].note
    assert c["dpkmeans-data-counts"].verdict == "differs"
    assert c["dpkmeans-delta-c-clean"].verdict == "not comparable"


def test_no_row_is_dropped_whatever_the_preconditions(rule_job, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = _claims(rule_job, tmp_path / "a", STANDIN)
    b = _claims(
        rule_job,
        tmp_path / "b",
        REAL,
        n_commercial=0,
        n_removed=0,
        n_knn=0,
        label_audit=False,
        width_ratio=1.2,
        sizes="500 400 300 209 100 100",
    )
    assert set(a) == set(b)
    assert b["dpkmeans-audit-labels"].verdict == "not comparable"
    assert b["dpkmeans-fig11-band-coverage"].verdict == "reproduced"  # narrow band: the coverage check counts
    assert b["dpkmeans-small-clusters"].verdict == "differs"


@pytest.mark.parametrize(
    ("colored_count", "verdict"),
    [
        (2000, "reproduced"),  # [0.187, 0.213]: claimed 0.2 not refuted, exact 0.2 inside
        (2300, "differs"),  # [0.216, 0.244]: the samples refute the claimed 0.2 (claimed_delta_ge_ci_low False)
        (
            1700,
            "differs",
        ),  # [0.158, 0.183]: not refuted (claimed_delta_ge_ci_low) but the exact 0.2 is outside (exact_in_ci False)
    ],
)
def test_colored_audit_claim_reads_the_tables_tail_checks(rule_job, tmp_path, colored_count, verdict):
    """dpkmeans-audit-colored is the audit table's own verdicts (one-sided ``claimed_delta_ge_ci_low`` and two-sided
    ``exact_in_ci``), not a test recomputed from the interval: it fails when either column is False."""
    c = _claims(rule_job, tmp_path, STANDIN, colored_count=colored_count)
    a = pd.read_csv(tmp_path / "audit.csv")
    ex = a[a["calibration"] == "exact_pdp"].iloc[0]
    assert (bool(ex["claimed_delta_ge_ci_low"]) and bool(ex["exact_in_ci"])) == (verdict == "reproduced")
    assert c["dpkmeans-audit-colored"].verdict == verdict
    assert c["dpkmeans-audit-labels"].verdict == "reproduced"


def test_spec_table_ids_once_and_the_peers_own_the_diffprivlib_row(rule_job, tmp_path):
    """Each claim id is one spec (its kind follows the run); with the peers on, only the diffprivlib row goes."""
    from dpgrid.papers.dpkmeans.claims import CLAIMS, DIFFPRIVLIB_ID

    ids = [s.claim_id for s in CLAIMS]
    assert len(ids) == len(set(ids))
    (tmp_path / "off").mkdir()
    (tmp_path / "on").mkdir()
    off = _claims(rule_job, tmp_path / "off", STANDIN, peers_enabled=False)
    on = _claims(rule_job, tmp_path / "on", STANDIN, peers_enabled=True)
    assert list(off) == ids and set(off) - set(on) == {DIFFPRIVLIB_ID}
    assert off[DIFFPRIVLIB_ID].verdict == "not comparable" and all(on[k] == off[k] for k in on)


def _spec(claim_id):
    from dpgrid.papers.dpkmeans.claims import CLAIMS

    return next(s for s in CLAIMS if s.claim_id == claim_id)


def test_fig8_budget_spec_needs_the_papers_budget():
    """Corollary 1 on the paper's budget (30, 0.2) + (30, 0): total (60, 0.2); another budget is not comparable."""
    from types import SimpleNamespace

    from dpgrid.core.claims import evaluate_claims

    spec = _spec("dpkmeans-fig8-budget")
    row = lambda budget, delta: evaluate_claims(  # noqa: E731
        "dpkmeans", [spec], SimpleNamespace(budget=budget, rel={"eps_total": 60.0, "delta_total": delta})
    )[0]
    assert row((30, 0.2, 30, 0), 0.2).verdict == "reproduced" and row((30, 0.2, 30, 0), 0.2).paper_value == "(60, 0.2)"
    assert row((30, 0.2, 30, 0), 0.25).verdict == "differs"
    other = row((10, 0.2, 30, 0), 0.2)
    assert other.verdict == "not comparable" and "precondition fails" in other.note


def test_eq13_spec_is_compared_with_the_audited_claimed_delta():
    """The value compared with is the delta eq. (13) was calibrated to at the largest audited eps_c (abs 1e-3)."""
    from types import SimpleNamespace

    from dpgrid.core.claims import evaluate_claims

    spec = _spec("dpkmeans-eq13-calibration")
    big = pd.Series({"claimed_delta": 0.05, "eps": 3.0, "exact_delta": 0.0505, "empirical_delta": 0.05})
    text = {"eq13_delta": 0.05, "eq13_eps": 3.0}
    ok = evaluate_claims("dpkmeans", [spec], SimpleNamespace(eq13=big), text)[0]
    assert (ok.verdict, ok.paper_value, ok.tolerance) == ("reproduced", "0.05", "abs 0.001")
    assert "delta_c = 0.05 at eps_c = 3 " in ok.description
    bad = evaluate_claims("dpkmeans", [spec], SimpleNamespace(eq13={**big, "exact_delta": 0.2}), text)[0]
    assert bad.verdict == "differs" and bad.reproduced_value == "0.2"


def _clustering(rule_job, tmp_path, method):
    from dpgrid.data.synthetic import synthesize_meter_data
    from dpgrid.papers.dpkmeans.stages.clustering import clustering_job

    write_table(
        daily_profiles(synthesize_meter_data(80, 3, "2019-01-07", 4, 60, np.random.default_rng(0))),
        tmp_path / "profiles.csv",
    )
    cfg = {
        "seed": 3,
        "dpkmeans": {
            "k": 3,
            "kmeans": {"n_init": 2, "max_iter": 100},
            "outliers": {"method": method, "n_neighbors": 20, "iqr_factor": 3.0},
        },
    }
    clustering_job(
        rule_job(
            "dpkmeans_clustering",
            config=cfg,
            input={"profiles": tmp_path / "profiles.csv"},
            output={"npz": tmp_path / "c.npz", "table": tmp_path / "s.csv", "outliers": tmp_path / "o.csv"},
        )
    )
    return (
        pd.read_csv(tmp_path / "o.csv"),
        pd.read_csv(tmp_path / "s.csv").set_index("dataset"),
        pd.read_csv(tmp_path / "profiles.csv"),
    )


@pytest.mark.parametrize("method", ["class", "knn"])
def test_outlier_methods(rule_job, tmp_path, method):
    o, s, prof = _clustering(rule_job, tmp_path, method)
    com = (o["customer_class"] == "commercial").to_numpy()
    removed, knn = o["is_outlier"].to_numpy(bool), o["knn_outlier"].to_numpy(bool)
    np.testing.assert_array_equal(removed, com if method == "class" else knn)
    np.testing.assert_array_equal(knn, knn_outliers(prof[HOURS].to_numpy(float), 20, 3.0))
    assert int(s.loc["without_outliers", "P"]) == len(o) - removed.sum()
    lo, hi = s.loc["with_outliers", ["knn_exact_factor_lo", "knn_exact_factor_hi"]]
    if lo < hi:  # a factor inside the reported range flags exactly the commercial meters
        np.testing.assert_array_equal(knn_outliers(prof[HOURS].to_numpy(float), 20, 0.5 * (lo + hi)), com)
    assert s.loc["with_outliers", "outlier_method"] == method


@pytest.mark.parametrize(
    ("verdicts", "expected"), [(["holds", "holds"], "reproduced"), (["holds", "violated"], "differs")]
)
def test_privacy_audit_claim_reads_results_privacy_audits(rule_job, tmp_path, verdicts, expected):
    c = _claims(rule_job, tmp_path, STANDIN, audit_verdicts=verdicts)
    assert c["dpkmeans_privacy_audit"].verdict == expected
