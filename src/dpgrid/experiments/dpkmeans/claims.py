"""Claims table rows of the dpkmeans paper, Figs. 3, 5-11 (results/dpkmeans/claims.csv).

Every row states its precondition and is ``not comparable`` (with the reason) when it fails, so that no
check passes vacuously (e.g. "the outlier rule removes exactly the commercial meters" on data without
commercial meters).  With the paper-matched stand-in (data source ``dpkmeans_standin``) the stated data
facts it is built from and the one printed number its free property is calibrated on (Delta_c = 2.13) are
``calibration target`` rows; every other printed number is a held-out prediction.  Every ``differs`` note
names the sweep or audit that explains it (docs/dpkmeans.md, "Fidelity").
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from dpgrid.claims import Claim, boolean_claim, calibration_target_claim, numeric_claim, write_claims
from dpgrid.experiments.dpkmeans.paper import PAPER, PAPER_VALUES
from dpgrid.io import read_json, read_table
from dpgrid.mechanisms.colored_centroid_noise import (
    design_from_precision,
    lemma2_closed_form,
    optimal_colored_design,
    verify_and_scale,
)

LOG = logging.getLogger(__name__)

STANDIN = "dpkmeans_standin"
#: The paper's Fig. 8/11 budget (eps_c, delta_c, eps_l, delta_l).
PAPER_BUDGET = (30.0, 0.2, 30.0, 0.0)


def _not_comparable(claim_id: str, target: str, description: str, paper_value: str, reproduced: str, why: str) -> Claim:
    return Claim(claim_id, PAPER, target, description, paper_value, reproduced, "exact", "not comparable", why)


def _interp_crossing(x, y, target: float) -> float:
    """First x where the piecewise-linear (in log x for x > 0) curve y(x) reaches ``target`` (NaN if never)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    order = np.argsort(x)
    x, y = x[order], y[order]
    for i in range(len(x)):
        if y[i] >= target:
            if i == 0:
                return float(x[0])
            lx = (
                np.log(x[i - 1 : i + 1])
                if (x[i - 1 : i + 1] > 0).all() and np.isfinite(x[i - 1 : i + 1]).all()
                else None
            )
            if lx is None:
                return float(x[i])
            t = (target - y[i - 1]) / (y[i] - y[i - 1])
            return float(np.exp(lx[0] + t * (lx[1] - lx[0])))
    return float("nan")


def _sweep_notes(sweep: pd.DataFrame, synth: dict, ccfg: dict) -> tuple[str, str]:
    """(IoU note, negative-share note) from the Fig. 11 sweep, for this run's covariance mechanism: the non-private
    reference, the eps_w where the claim would hold, and the row bound / alpha settings at this run's eps_w."""
    mech, deb = synth["cov_mechanism"], bool(synth.get("debias_wishart", False))
    eps = sweep[(sweep["axis"] == "eps_w") & (sweep["cov_mechanism"] == mech)]
    if mech == "wishart":
        eps = eps[eps["debias"].astype(bool) == deb]
    elif mech == "analyze_gauss":
        eps = eps[np.isclose(eps["delta_w"], float(synth["delta_w"]))]
    name = f"{mech}{' debiased' if mech == 'wishart' and deb else ''}"
    ref = sweep[sweep["axis"] == "reference"]
    head = "synthetic_sweep.csv, fig11_sweep: "
    iou = neg = head
    if len(ref):
        iou += f"the non-private covariance (DP means only) gives IoU {ref['mean_iou'].iloc[0]:.2f}; "
        neg += (
            f"the log-normal model itself (non-private covariance) gives {100 * ref['neg_synthetic'].iloc[0]:.2f} % "
            "negative values; "
        )
    if len(eps):
        e = _interp_crossing(eps["eps_w"], eps["mean_iou"], ccfg["min_band_iou"])
        ok = eps[eps["neg_synthetic"] <= eps["neg_true"] + ccfg["max_negative_share_gap"]]["eps_w"]
        iou += f"{name} reaches IoU {ccfg['min_band_iou']:g} at eps_w ~ {e:.3g} (DP at every eps_w; none is stated); "
        neg += (
            f"with {name} the share is within {ccfg['max_negative_share_gap']:g} of the true one from eps_w = "
            f"{ok.min() if len(ok) else float('nan'):g}; "
        )
    alt = []
    for axis, unit in (("row_bound", "row bound "), ("alpha", "alpha = ")):
        d = sweep[(sweep["axis"] == axis) & (sweep["cov_mechanism"] == mech)]
        if mech == "wishart":
            d = d[d["debias"].astype(bool) == deb]
        if len(d):
            best = d.loc[d["mean_iou"].idxmax()]
            alt.append(
                f"{unit}{best[axis]:g}{' kW' if axis == 'alpha' else ''}: IoU {best['mean_iou']:.2f}, "
                f"{100 * best['neg_synthetic']:.1f} % negative, {100 * best['rows_clipped']:.0f} % rows clipped"
            )
    if alt:
        tail = f"at eps_w = {synth['eps_w']:g} the best " + "; the best ".join(alt)
        iou += tail
        neg += tail
    return iou.rstrip("; "), neg.rstrip("; ")


def claims_job(job) -> None:
    cfg = job.params.cfg
    ccfg = cfg["claims"]
    sens = read_table(job.input.sensitivity).set_index("dataset")
    acc = read_table(job.input.accuracy)
    synth = read_json(job.input.synthetic)
    bic = read_table(job.input.bic)
    audit = read_table(job.input.audit)
    pit = read_json(job.input.pitfall)
    rel = read_json(job.input.release)
    variants = read_table(job.input.variants)
    exact = read_table(job.input.exact_delta)
    sweep = read_table(job.input.sweep)
    csweep = read_table(job.input.commercial_sweep)
    source = job.params.data["source"]
    standin = source == STANDIN
    why_data = (
        f"data source {source!r} is not the paper-matched stand-in ({STANDIN}); the paper's 1416 California "
        "meters are proprietary"
    )
    iou_note, neg_note = _sweep_notes(sweep, synth, ccfg)
    draws = read_table(job.input.standin_draws)
    cl: list[Claim] = []
    w, wo = sens.loc["with_outliers"], sens.loc["without_outliers"]
    n_com, n_rem = int(w["n_commercial_total"]), int(w["n_removed_outliers"])

    # ---- the data: stated facts (inputs of the stand-in) ----------------------------------------------------
    counts = f"P = {int(w['P'])}, {n_com} commercial, P = {int(wo['P'])} after removing the outliers"
    paper_counts = f"P = 1416, 7 commercial, P = {PAPER_VALUES['P_clean']}"
    facts_hold = int(w["P"]) == 1416 and n_com == PAPER_VALUES["n_outliers"] and int(wo["P"]) == PAPER_VALUES["P_clean"]
    desc = "Meters: 1416 hourly daily profiles (d = 25), 7 commercial outliers, 1409 after removing them (Sec. V-B)"
    if standin:
        cl.append(
            Claim(
                "dpkmeans-data-counts",
                PAPER,
                "table_sensitivity",
                desc,
                paper_counts,
                counts,
                "input",
                "calibration target",
                "stated data facts the stand-in is built from (data.experiments)",
            )
        )
    else:
        cl.append(
            boolean_claim(
                "dpkmeans-data-counts",
                PAPER,
                "table_sensitivity",
                desc,
                facts_hold,
                paper_value=paper_counts,
                reproduced_value=counts,
                note="" if facts_hold else f"other data: {why_data}",
            )
        )
    sizes = [int(s) for s in str(wo["cluster_sizes"]).split()]
    n_small = sum(s < int(wo["d"]) for s in sizes)
    desc = (
        "K-means (K = 6) on the data without outliers has exactly two clusters with fewer homes than d = 25 (Fig. 10)"
    )
    val = f"cluster sizes {' '.join(map(str, sizes))} ({n_small} below {int(wo['d'])})"
    if standin:
        cl.append(
            Claim(
                "dpkmeans-small-clusters",
                PAPER,
                "table_sensitivity",
                desc,
                "2 small clusters (2 and 4)",
                val,
                "input",
                "calibration target",
                "stated data fact the stand-in is built from (two small behavioural classes); K-means "
                + ("recovers them" if n_small == 2 else f"finds {n_small} small clusters"),
            )
        )
    else:
        cl.append(
            boolean_claim(
                "dpkmeans-small-clusters",
                PAPER,
                "table_sensitivity",
                desc,
                n_small == 2,
                paper_value="2 small clusters (2 and 4)",
                reproduced_value=val,
                note="" if n_small == 2 else "the data's K-means structure differs from the paper's",
            )
        )

    # ---- sensitivity (Figs. 7-8) ----------------------------------------------------------------------------
    if standin:
        spread = (
            f"; {len(draws)} other draws of the same population give {draws['delta_c'].min():.3g}-"
            f"{draws['delta_c'].max():.3g} (median {draws['delta_c'].median():.3g}; standin_draws.csv): Delta_c "
            "is a maximum over removals"
            if len(draws)
            else ""
        )
        cl.append(
            calibration_target_claim(
                "dpkmeans-delta-c-clean",
                PAPER,
                "table_sensitivity",
                "Centroid sensitivity Delta_c without outliers (Fig. 8)",
                PAPER_VALUES["delta_c_without_outliers"],
                float(wo["delta_c"]),
                note="the stand-in's free property (data.experiments.dpkmeans.separation) is calibrated on it "
                "(python -m dpgrid.experiments.dpkmeans.calibration)" + spread,
            )
        )
    else:
        cl.append(
            numeric_claim(
                "dpkmeans-delta-c-clean",
                PAPER,
                "table_sensitivity",
                "Centroid sensitivity Delta_c without outliers (Fig. 8)",
                PAPER_VALUES["delta_c_without_outliers"],
                float(wo["delta_c"]),
                rel_tol=0.25,
                comparable=False,
                note=why_data + "; table_paper_variants gives Figs. 8-9 at 2.13",
            )
        )
    cs = csweep.dropna(subset=["delta_c"])
    m_star = (
        _interp_crossing(cs["commercial_scale"], cs["delta_c"], PAPER_VALUES["delta_c_with_outliers"])
        if len(cs)
        else float("nan")
    )
    ours = cs.loc[cs["commercial_scale"] == 1.0, "commercial_mean_kw"]
    csweep_note = (
        f"commercial_sweep.csv: Delta_c with outliers is set by the size of the commercial meters (not stated "
        f"in the paper); it reaches 39.20 at about {m_star:.3g} x our business customers' size "
        f"(mean {float(ours.iloc[0]) if len(ours) else float('nan'):.3g} kW); "
        "table_paper_variants gives the Fig. 9 accuracy at 39.20"
    )
    if n_com == 0:
        cl.append(
            _not_comparable(
                "dpkmeans-delta-c-outliers",
                "table_sensitivity",
                "Centroid sensitivity Delta_c with outliers (Fig. 7)",
                "39.2",
                f"{float(w['delta_c']):.4g}",
                "precondition fails: the data have no commercial meters, so there are no class outliers to include",
            )
        )
    else:
        c = numeric_claim(
            "dpkmeans-delta-c-outliers",
            PAPER,
            "table_sensitivity",
            "Centroid sensitivity Delta_c with outliers (Fig. 7)",
            PAPER_VALUES["delta_c_with_outliers"],
            float(w["delta_c"]),
            rel_tol=0.25,
            comparable=standin,
            note=(csweep_note if standin else why_data + "; " + csweep_note),
        )
        cl.append(c)
    ratio = float(w["delta_c"] / wo["delta_c"])
    desc = (
        "Removing the outliers lowers Delta_c by at least an order of magnitude (39.20 -> 2.13, 'a factor close to 20')"
    )
    if n_com == 0 or n_rem == 0:
        cl.append(
            _not_comparable(
                "dpkmeans-delta-c-drop",
                "table_sensitivity",
                desc,
                "39.20/2.13 = 18.4x",
                f"{ratio:.3g}x",
                f"precondition fails: {n_com} commercial meters, {n_rem} removed (nothing to compare)",
            )
        )
    else:
        cl.append(
            boolean_claim(
                "dpkmeans-delta-c-drop",
                PAPER,
                "table_sensitivity",
                desc,
                ratio >= 10,
                paper_value="39.20/2.13 = 18.4x",
                reproduced_value=f"{float(w['delta_c']):.4g}/{float(wo['delta_c']):.4g} = {ratio:.3g}x",
                note="" if ratio >= 10 else csweep_note,
            )
        )

    # ---- outliers: the k-NN rule versus the class ------------------------------------------------------------
    nk, nkc = int(w["n_knn_flagged"]), int(w["n_knn_commercial"])
    lo, hi = float(w["knn_exact_factor_lo"]), float(w["knn_exact_factor_hi"])
    rng_note = (
        f"the rule flags exactly the commercial meters for Tukey factors in [{lo:.3g}, {hi:.3g}) (ours "
        f"{'in' if lo <= 3.0 < hi else 'outside'} it; table_sensitivity knn_exact_factor_lo/hi, outliers.csv "
        "knn_factor per meter)"
        if lo < hi
        else f"no Tukey factor flags exactly the commercial meters (largest residential factor {lo:.3g} >= smallest "
        f"commercial {hi:.3g}; outliers.csv knn_factor)"
    )
    desc = "The 20-nearest-neighbour outlier rule (no class label) flags exactly the commercial customers (Sec. V-B)"
    if n_com == 0:
        cl.append(
            _not_comparable(
                "dpkmeans-outliers-removed",
                "table_sensitivity",
                desc,
                "7 flagged, all commercial",
                f"{nk} flagged, {nkc} commercial",
                "precondition fails: the data have no commercial meters, so 'exactly the commercial "
                "customers' cannot be checked",
            )
        )
        cl.append(
            _not_comparable(
                "dpkmeans-knn-detects-commercial",
                "table_sensitivity",
                "The commercial customers are clear outliers: the 20-NN rule flags every one (Fig. 7)",
                "7 of 7",
                f"{nkc} of 0",
                "precondition fails: no commercial meters in the data",
            )
        )
    else:
        exact_ok = nk == nkc == n_com
        cl.append(
            boolean_claim(
                "dpkmeans-outliers-removed",
                PAPER,
                "table_sensitivity",
                desc,
                exact_ok,
                paper_value="7 flagged, all commercial (P = 1409 left)",
                reproduced_value=f"{nk} flagged, {nkc} of {n_com} commercial",
                note="" if exact_ok else rng_note,
            )
        )
        cl.append(
            boolean_claim(
                "dpkmeans-knn-detects-commercial",
                PAPER,
                "table_sensitivity",
                "The commercial customers are clear outliers: the 20-NN rule flags every one (Fig. 7)",
                nkc == n_com,
                paper_value="7 of 7",
                reproduced_value=f"{nkc} of {n_com}",
                note="" if nkc == n_com else rng_note,
            )
        )

    # ---- Fig. 9 ------------------------------------------------------------------------------------------------
    for base in ("white", "yu2016", "balcan2017", "ni2021"):
        a = acc[acc["method"] == "colored"].set_index("eps_c")["mean_loss"]
        b = acc[acc["method"] == base].set_index("eps_c")["mean_loss"]
        common = a.index.intersection(b.index)
        holds = bool((a.loc[common] < b.loc[common]).all())
        worst = float((a.loc[common] / b.loc[common]).max())
        cl.append(
            boolean_claim(
                f"dpkmeans-fig9-colored-vs-{base}",
                PAPER,
                "fig9",
                f"Colored noise has a lower DP accuracy loss than {base} at every eps_c of Fig. 9 (delta_c = 0.01)",
                holds,
                reproduced_value=f"{'holds' if holds else 'does not hold'} (max ratio colored/{base} = {worst:.3g})",
            )
        )
    v9 = variants[
        (variants["figure"] == "fig9") & (variants["dataset"] == "without_outliers") & (variants["variant"] == "paper")
    ]
    vc = v9[v9["method"] == "colored"].set_index("eps_c")["expected_loss"]
    vw = v9[v9["method"] == "white"].set_index("eps_c")["expected_loss"]
    holds = bool(len(vc) and (vc < vw.loc[vc.index]).all())
    cl.append(
        boolean_claim(
            "dpkmeans-fig9-paper-delta-colored-vs-white",
            PAPER,
            "table_paper_variants",
            "At the paper's Delta_c = 2.13 (paper-parameter variant) colored noise has a lower expected DP "
            "accuracy loss than white noise at every eps_c of Fig. 9",
            holds,
            reproduced_value=f"{'holds' if holds else 'does not hold'} (max ratio "
            f"{float((vc / vw.loc[vc.index]).max()) if len(vc) else float('nan'):.3g})",
        )
    )
    if not job.params.peers_enabled:  # else the peers' claims (results/peers/claims.csv) hold this row, with a verdict
        cl.append(
            boolean_claim(
                "dpkmeans-fig9-colored-vs-diffprivlib",
                PAPER,
                "fig9",
                "Colored noise vs IBM diffprivlib KMeans (extra peer, not in the paper)",
                False,
                comparable=False,
                reproduced_value="not run",
                paper_value="not in the paper",
                note="diffprivlib runs in its own pinned environment in the peers part of the pipeline, which is "
                "off (config peers.enabled: false); enable it with --configfile config/peers.yaml "
                "(docs/dpkmeans.md, Peers)",
            )
        )

    # ---- Fig. 11 -----------------------------------------------------------------------------------------------
    setting = (
        f"{synth['cov_mechanism']}, eps_w = {synth['eps_w']:g}, delta_w = {synth['delta_w']:.3g}, "
        f"row bound {synth.get('row_bound', float('nan')):g}, alpha = {synth['alpha']:g} kW"
    )
    cov, iou, wr = float(synth["mean_coverage"]), float(synth["mean_iou"]), float(synth["median_width_ratio"])
    desc = (
        "The synthetic (DP log-normal) 90 % band covers the true data's 90 % band (mean fraction of the true band "
        f"covered >= {ccfg['min_band_coverage']})"
    )
    if wr > ccfg["max_band_width_ratio"]:
        cl.append(
            _not_comparable(
                "dpkmeans-fig11-band-coverage",
                "fig11",
                desc,
                "visual overlap (Fig. 11)",
                f"coverage {cov:.3f}, band {wr:.3g}x as wide as the true one",
                f"precondition fails: a band more than {ccfg['max_band_width_ratio']:g}x as wide as the "
                f"true band covers it trivially (median width ratio {wr:.3g}; {setting}); see "
                "dpkmeans-fig11-band-iou",
            )
        )
    else:
        cl.append(
            boolean_claim(
                "dpkmeans-fig11-band-coverage",
                PAPER,
                "fig11",
                desc,
                cov >= ccfg["min_band_coverage"],
                reproduced_value=f"coverage {cov:.3f}, IoU {iou:.3f}, width ratio {wr:.3g}",
                paper_value="visual overlap (Fig. 11)",
                note="" if cov >= ccfg["min_band_coverage"] else iou_note,
            )
        )
    cl.append(
        boolean_claim(
            "dpkmeans-fig11-band-iou",
            PAPER,
            "fig11",
            "The synthetic 90 % band matches the true band, not only covers it (mean intersection over "
            f"union of the bands >= {ccfg['min_band_iou']})",
            iou >= ccfg["min_band_iou"],
            reproduced_value=f"IoU {iou:.3f} ({setting})",
            paper_value="visual overlap (Fig. 11)",
            note="" if iou >= ccfg["min_band_iou"] else iou_note,
        )
    )
    neg_s, neg_t = float(synth["negative_share_synthetic"]), float(synth["negative_share_true"])
    ok = neg_s <= neg_t + ccfg["max_negative_share_gap"]
    cl.append(
        boolean_claim(
            "dpkmeans-fig11-negative-share",
            PAPER,
            "fig11",
            "The synthetic load profiles are loads like the true ones: the share of negative synthetic hourly "
            f"values exceeds the true profiles' by at most {ccfg['max_negative_share_gap']:g}",
            ok,
            paper_value="synthetic shapes within the true bands (Fig. 11)",
            reproduced_value=f"{100 * neg_s:.2f} % negative (true {100 * neg_t:.2f} %; {setting})",
            note="" if ok else neg_note,
        )
    )

    # ---- Fig. 10 -----------------------------------------------------------------------------------------------
    desc = "Log-normal has the lowest BIC (majority of hours) in every cluster with more than d = 25 houses (Fig. 10)"
    sizes_b = bic.groupby("cluster")["n"].first() if len(bic) else pd.Series(dtype=float)
    large = sizes_b[sizes_b > 25].index
    if not len(large):
        cl.append(
            _not_comparable(
                "dpkmeans-fig10-lognormal-bic",
                "table_bic",
                desc,
                "log-normal best for all clusters except the two small ones",
                "no fit",
                "precondition fails: no cluster has more than 25 houses with a BIC fit",
            )
        )
    else:
        wins = bic[bic["winner"].astype(bool)]
        frac = (
            wins[wins["cluster"].isin(large)]
            .groupby("cluster")["distribution"]
            .apply(lambda s: (s == "lognorm").mean())
        )
        holds = bool((frac >= 0.5).all())
        best = bic[bic["cluster"].isin(large)].groupby(["cluster", "hour"])["bic"].transform("min")
        sub = bic[bic["cluster"].isin(large)].assign(gap=lambda d: d["bic"] - best)
        tie = sub[sub["distribution"] == "lognorm"].groupby("cluster")["gap"].apply(lambda s: (s <= 2.0).mean())
        cl.append(
            boolean_claim(
                "dpkmeans-fig10-lognormal-bic",
                PAPER,
                "table_bic",
                desc,
                holds,
                reproduced_value="; ".join(
                    f"cluster {k}: lognorm {v:.0%}, most often "
                    f"{wins[wins['cluster'] == k]['distribution'].mode().iloc[0]}"
                    for k, v in frac.items()
                ),
                paper_value="log-normal best for all clusters except the two small ones",
                note=""
                if holds
                else "audit (bic.csv): log-normal is within 2 BIC units of the best fit (no positive evidence "
                "against it, Kass-Raftery) in "
                + ", ".join(f"cluster {k}: {v:.0%}" for k, v in tie.items())
                + " of the hours; K-means clusters of a log-normal mixture are truncated mixtures, and "
                "log-normal, inverse Gaussian and log-logistic fits are close at these spreads",
            )
        )

    # ---- privacy: calibration, audits, Wishart, Lemma 2 --------------------------------------------------------
    a13 = audit[(audit["mechanism"] == "colored_centroids") & (audit["calibration"] == "paper_eq13")]
    big = a13.loc[a13["eps"].idxmax()]
    cl.append(
        numeric_claim(
            "dpkmeans-eq13-calibration",
            PAPER,
            "audit",
            f"eq. (13)/(11) calibration gives delta_c = {big['claimed_delta']:g} at eps_c = {big['eps']:g} "
            "(privacy-loss tail of the worst leave-one-out pair)",
            float(big["claimed_delta"]),
            float(big["exact_delta"]),
            abs_tol=1e-3,
            note=f"exact Pr(L > eps) = {big['exact_delta']:.4g}, Monte Carlo {big['empirical_delta']:.4g}; "
            "Theorem 2's bound holds only for eps < 1 (audit.csv, exact_delta.csv). Our mechanism uses "
            "the exact PDP calibration (config centroid_noise.calibration)",
        )
    )
    ex = audit[(audit["mechanism"] == "colored_centroids") & (audit["calibration"] == "exact_pdp")]
    ok = bool(((ex["ci_low"] <= ex["claimed_delta"]) & (ex["claimed_delta"] <= ex["ci_high"])).all())
    cl.append(
        boolean_claim(
            "dpkmeans-audit-colored",
            PAPER,
            "audit",
            "Empirical privacy-loss tail of the colored mechanism (exact calibration) is within its "
            "confidence interval of the claimed delta_c at every audited budget",
            ok,
            paper_value="Theorem 3",
            note="" if ok else "the Monte Carlo tail misses the claimed delta (audit.csv)",
        )
    )
    lab = audit[audit["mechanism"] == "modulo_labels"]
    desc = "Empirical privacy-loss tail of the label mechanism matches Theorem 4's delta_l"
    if len(lab):
        ok = bool(((lab["ci_low"] <= lab["claimed_delta"]) & (lab["claimed_delta"] <= lab["ci_high"])).all())
        cl.append(
            boolean_claim(
                "dpkmeans-audit-labels",
                PAPER,
                "audit",
                desc,
                ok,
                paper_value="Theorem 4",
                note="" if ok else "the Monte Carlo tail misses Theorem 4's delta (audit.csv)",
            )
        )
    else:
        cl.append(
            _not_comparable(
                "dpkmeans-audit-labels",
                "audit",
                desc,
                "Theorem 4",
                "no audit",
                "precondition fails: no label-sensitive point (Delta_1 = 0) on either dataset, so "
                "there is no neighbour pair to audit",
            )
        )
    ehs = exact[(exact["calibration"] == "exact_pdp")]
    worst = ehs.loc[(ehs["hockey_stick_delta"] - ehs["delta_budget"]).idxmax()]
    f8 = ehs[ehs["use"] == "fig8 release"].iloc[0]
    ok = bool((ehs["hockey_stick_delta"] <= ehs["delta_budget"] * (1 + 1e-9)).all())
    cl.append(
        boolean_claim(
            "dpkmeans-exact-delta",
            PAPER,
            "table_exact_delta",
            "Theorem 1 (PDP implies DP): every exactly calibrated colored release is (eps, delta)-DP with "
            "its delta_c; measured: the exact hockey-stick delta of the same noise (beyond the paper)",
            ok,
            paper_value="Theorem 1",
            reproduced_value=f"Fig. 8 release: PDP delta_c {f8['pdp_delta']:.3g} -> hockey-stick "
            f"{f8['hockey_stick_delta']:.3g} (the same noise is ({f8['eps_hockey_stick_at_budget_delta']:.3g}, "
            f"{f8['delta_budget']:g})-DP); largest ratio over budgets "
            f"{float(ehs['hs_over_pdp'].max()):.3g}",
            note="" if ok else f"hockey-stick delta above the budget at {worst['use']} (exact_delta.csv)",
        )
    )
    wa = audit[audit["mechanism"] == "wishart_covariance"].iloc[0]
    cl.append(
        numeric_claim(
            "dpkmeans-wishart-delta",
            PAPER,
            "audit",
            f"Wishart covariance mechanism (Jiang et al. 2016) is (eps, 0)-DP at eps_w = {wa['eps']:g}",
            0.0,
            float(wa["empirical_delta"]),
            abs_tol=1e-3,
            note=f"the output can be impossible under the neighbour (support mismatch): delta = "
            f"1 - exp(-eps/3) = {wa['exact_delta']:.4g}, Monte Carlo {wa['empirical_delta']:.4g} "
            f"[{wa['ci_low']:.3g}, {wa['ci_high']:.3g}] (audit.csv; closed form in "
            "dpgrid.mechanisms.wishart_covariance)",
        )
    )
    # Lemma 2 as printed vs the optimum of eq. (15) (1-d centroids, K = 3)
    shifts = np.diag([0.2, 0.5, 0.8])
    desc = (
        "Lemma 2's closed form (eq. 16-18) gives the optimum of eq. (15) (tr Gamma^-1, 1-d centroids with shifts "
        "0.2, 0.5, 0.8, gamma_c = 1)"
    )
    try:
        G = lemma2_closed_form(shifts, 1.0)
        scaled = verify_and_scale(design_from_precision(G, "lemma2"), shifts)
        opt = optimal_colored_design(shifts, tol=1e-9)
        cl.append(
            numeric_claim(
                "dpkmeans-lemma2-closed-form",
                PAPER,
                "mechanisms",
                desc,
                opt.primal_unit,
                float(np.trace(np.linalg.inv(G))),
                rel_tol=1e-3,
                note=f"eq. (18) as printed violates the constraints (scaled by {scaled.scale_applied:.4g} to be "
                f"feasible: trace {scaled.primal_unit:.4g} vs optimum {opt.primal_unit:.4g}); "
                "we solve eq. (15) through its dual instead; the authors' implementation (CEDSKMeans) is checked "
                "by dpkmeans-lemma2-authors-code when the peers are enabled",
            )
        )
    except ValueError as exc:
        LOG.warning("Lemma 2 check failed: %s", exc)
        cl.append(
            _not_comparable(
                "dpkmeans-lemma2-closed-form",
                "mechanisms",
                desc,
                "optimum",
                "undefined",
                f"Lemma 2's formula is undefined here: {exc}",
            )
        )
    ok = bool(pit["rmse_filtered"] < 0.5 * pit["rmse_noisy"])
    cl.append(
        boolean_claim(
            "dpkmeans-fig3-filter",
            PAPER,
            "fig3",
            "White noise on the smooth feeder-average load is largely removed by a Savitzky-Golay filter",
            ok,
            reproduced_value=f"RMSE {pit['rmse_noisy']:.3g} -> {pit['rmse_filtered']:.3g} kW",
            paper_value="visual (Fig. 3)",
            note="" if ok else "the filter leaves more than half of the noise (fig3_info.json)",
        )
    )
    r = cfg["release"]
    budget = (r["eps_c"], r["delta_c"], r["eps_l"], r["delta_l"])
    desc = "Total budget of the Fig. 8 release (Corollary 1: eps_c + eps_l, delta_c + delta_l with Theorem 4's delta_l)"
    val = f"({rel['eps_total']:g}, {rel['delta_total']:.4g})"
    if tuple(map(float, budget)) != PAPER_BUDGET:
        cl.append(
            _not_comparable(
                "dpkmeans-fig8-budget",
                "fig8",
                desc,
                "(60, 0.2)",
                val,
                f"precondition fails: the release budget dpkmeans.release = {budget} is not the paper's {PAPER_BUDGET}",
            )
        )
    else:
        ok = math.isclose(rel["eps_total"], 60.0) and abs(rel["delta_total"] - 0.2) <= 1e-9
        cl.append(
            boolean_claim(
                "dpkmeans-fig8-budget",
                PAPER,
                "fig8",
                desc,
                ok,
                paper_value="(60, 0.2)",
                reproduced_value=val,
                note="" if ok else "Theorem 4's delta_l of the label noise is not 0 at rho (release.json)",
            )
        )
    write_claims(cl, job.output.claims)
