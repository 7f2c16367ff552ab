"""The measures of the dpkmeans claims (Ravi et al., Figs. 3, 5-11): one function per claim (or a factory), each
computing a :class:`~dpgrid.core.claims.Measured` value from the context of :mod:`.claims_context`.

Every measure states its precondition and returns ``not comparable`` (with the reason) when it fails, so that no
check passes vacuously; with the paper-matched stand-in the data facts it is built from and the Delta_c it is
calibrated on are ``calibration target`` rows.
"""

from __future__ import annotations

import functools
import logging
import math
import re

import numpy as np
import pandas as pd

from dpgrid.core.claims import CALIBRATION, NOT_COMPARABLE, Measured
from dpgrid.mechanisms.colored_centroid_noise import (
    design_from_precision,
    lemma2_closed_form,
    optimal_colored_design,
    verify_and_scale,
)
from dpgrid.papers.dpkmeans.paper import (
    P_ALL,
    PAPER_BUDGET,
    PAPER_TOTAL_BUDGET,
    PAPER_VALUES,
    SMALL_CLUSTERS,
)

LOG = logging.getLogger(__name__)

#: "a factor close to 20" (Sec. V-B; 39.20 / 2.13 = 18.4): the Delta_c drop the removal of the outliers must give,
#: within a factor 2 of 20 (at least an order of magnitude, and not several times the stated factor)
DROP_BAND = (10.0, 40.0)
#: Lemma 2 is checked on 1-d centroids (K = 3) with these shifts and gamma_c = 1
LEMMA2_SHIFTS = (0.2, 0.5, 0.8)


def at_paper_sizes(measure):
    """``measure`` compared only when the stand-in has the paper's sizes (1416 meters, 7 commercial): the stand-in
    at reduced sizes (the quick configuration) gives ``not comparable`` with its sizes, so that its verdicts do not
    contradict the full run's on statements about the paper's population. Other data are compared as the measure
    decides (its own preconditions)."""

    def gated(ctx) -> Measured:
        m = measure(ctx)
        if ctx.standin and not ctx.paper_sized and m.status != NOT_COMPARABLE:
            return Measured(m.value, shown=m.shown, status=NOT_COMPARABLE, note=f"precondition failed: {ctx.why_sizes}")
        return m

    return functools.wraps(measure)(gated)


# ---- the data: stated facts (inputs of the stand-in) ----------------------------------------------------------
def data_counts(ctx) -> Measured:
    w, wo, n_com = ctx.w, ctx.wo, ctx.n_com
    counts = f"P = {int(w['P'])}, {n_com} commercial, P = {int(wo['P'])} after removing the outliers"
    holds = int(w["P"]) == P_ALL and n_com == PAPER_VALUES["n_outliers"] and int(wo["P"]) == PAPER_VALUES["P_clean"]
    if ctx.standin:
        return Measured(
            holds,
            shown=counts,
            note="stated data facts the stand-in is built from (data.experiments)",
            status=CALIBRATION,
        )
    return Measured(holds, shown=counts, note="" if holds else f"other data: {ctx.why_data}")


def small_clusters(ctx) -> Measured:
    sizes = [int(s) for s in str(ctx.wo["cluster_sizes"]).split()]
    n_small = sum(s < int(ctx.wo["d"]) for s in sizes)
    shown = f"cluster sizes {' '.join(map(str, sizes))} ({n_small} below {int(ctx.wo['d'])})"
    holds = n_small == len(SMALL_CLUSTERS)
    if ctx.standin:
        return Measured(
            holds,
            shown=shown,
            note="stated data fact the stand-in is built from (two small behavioural classes); K-means "
            + ("recovers them" if holds else f"finds {n_small} small clusters"),
            status=CALIBRATION,
        )
    return Measured(holds, shown=shown, note="" if holds else "the data's K-means structure differs from the paper's")


# ---- sensitivity (Figs. 7-8) ----------------------------------------------------------------------------------
def delta_c_clean(ctx) -> Measured:
    value, draws = float(ctx.wo["delta_c"]), ctx.draws
    if not ctx.standin:
        return Measured(
            value, note=ctx.why_data + "; table_paper_variants gives Figs. 8-9 at 2.13", status=NOT_COMPARABLE
        )
    spread = (
        f"; {len(draws)} other draws of the same population give {draws['delta_c'].min():.3g}-"
        f"{draws['delta_c'].max():.3g} (median {draws['delta_c'].median():.3g}; standin_draws.csv): Delta_c "
        "is a maximum over removals"
        if len(draws)
        else ""
    )
    return Measured(
        value,
        note="the stand-in's free property (data.experiments.dpkmeans.separation) is calibrated on it "
        "(python -m dpgrid.papers.dpkmeans.calibration)" + spread,
        status=CALIBRATION,
    )


@at_paper_sizes
def delta_c_outliers(ctx) -> Measured:
    value = float(ctx.w["delta_c"])
    if ctx.n_com == 0:
        return Measured(
            value,
            note="precondition fails: the data have no commercial meters, so there are no class outliers to include",
            status=NOT_COMPARABLE,
        )
    if ctx.standin:
        return Measured(value, note=ctx.csweep_note)
    return Measured(value, note=ctx.why_data + "; " + ctx.csweep_note, status=NOT_COMPARABLE)


@at_paper_sizes
def delta_c_drop(ctx) -> Measured:
    ratio = float(ctx.w["delta_c"] / ctx.wo["delta_c"])
    holds = DROP_BAND[0] <= ratio <= DROP_BAND[1]
    if ctx.n_com == 0 or ctx.n_rem == 0:
        return Measured(
            holds,
            shown=f"{ratio:.3g}x",
            note=f"precondition fails: {ctx.n_com} commercial meters, {ctx.n_rem} removed (nothing to compare)",
            status=NOT_COMPARABLE,
        )
    return Measured(
        holds,
        shown=f"{float(ctx.w['delta_c']):.4g}/{float(ctx.wo['delta_c']):.4g} = {ratio:.3g}x",
        note="" if holds else ctx.csweep_note,
    )


# ---- outliers: the k-NN rule versus the class -----------------------------------------------------------------
@at_paper_sizes
def outliers_removed(ctx) -> Measured:
    nk, nkc, n_com = int(ctx.w["n_knn_flagged"]), int(ctx.w["n_knn_commercial"]), ctx.n_com
    holds = nk == nkc == n_com
    shown = f"{nk} flagged, {nkc} of {n_com} commercial"
    if n_com == 0:
        return Measured(
            holds,
            shown=shown,
            note="precondition fails: the data have no commercial meters, so 'exactly the commercial "
            "customers' cannot be checked",
            status=NOT_COMPARABLE,
        )
    return Measured(holds, shown=shown, note="" if holds else ctx.rng_note)


@at_paper_sizes
def knn_detects_commercial(ctx) -> Measured:
    nkc, n_com = int(ctx.w["n_knn_commercial"]), ctx.n_com
    if n_com == 0:
        return Measured(
            False,
            shown=f"{nkc} of 0",
            note="precondition fails: no commercial meters in the data",
            status=NOT_COMPARABLE,
        )
    o = ctx.outliers
    flagged = set(o.loc[o["knn_outlier"].astype(str).str.lower().eq("true"), "meter_id"])
    removed = set(o.loc[o["is_outlier"].astype(str).str.lower().eq("true"), "meter_id"])
    same = flagged == removed
    return Measured(
        same,
        shown=f"{len(flagged)} flagged, {len(removed)} removed, {len(flagged & removed)} in both",
        note="" if same else f"the 20-NN rule removes other points than the ones we removed; {ctx.rng_note}",
    )


# ---- Fig. 9 ---------------------------------------------------------------------------------------------------
def fig9_vs(base: str):
    def measure(ctx) -> Measured:
        acc = ctx.acc
        a = acc[acc["method"] == "colored"].set_index("eps_c")["mean_loss"]
        b = acc[acc["method"] == base].set_index("eps_c")["mean_loss"]
        common = a.index.intersection(b.index)
        pairs = pd.DataFrame({"a": a.loc[common], "b": b.loc[common]})
        if pairs.empty or not np.isfinite(pairs.to_numpy(float)).all():
            # 'colored below base at every eps_c' holds for an empty grid: not a result
            return Measured(
                False,
                shown="-",
                note=f"precondition failed: no eps_c with a finite loss for both colored and {base} "
                f"({len(common)} shared eps_c)",
                status=NOT_COMPARABLE,
            )
        holds = bool((a.loc[common] < b.loc[common]).all())
        worst = float((a.loc[common] / b.loc[common]).max())
        return Measured(
            holds, shown=f"{'holds' if holds else 'does not hold'} (max ratio colored/{base} = {worst:.3g})"
        )

    return measure


def fig9_paper_delta(ctx) -> Measured:
    v = ctx.variants
    v9 = v[(v["figure"] == "fig9") & (v["dataset"] == "without_outliers") & (v["variant"] == "paper")]
    vc = v9[v9["method"] == "colored"].set_index("eps_c")["expected_loss"]
    vw = v9[v9["method"] == "white"].set_index("eps_c")["expected_loss"]
    holds = bool(len(vc) and (vc < vw.loc[vc.index]).all())
    return Measured(
        holds,
        shown=f"{'holds' if holds else 'does not hold'} (max ratio "
        f"{float((vc / vw.loc[vc.index]).max()) if len(vc) else float('nan'):.3g})",
    )


def diffprivlib_off(ctx) -> Measured:
    return Measured(
        False,
        shown="not run",
        note="diffprivlib runs in its own pinned environment in the peers part of the pipeline, which is "
        "off (config peers.enabled: false); enable it with --configfile config/peers.yaml "
        "(docs/dpkmeans.md, Peers)",
        status=NOT_COMPARABLE,
    )


# ---- Fig. 11 --------------------------------------------------------------------------------------------------
def band_coverage(ctx) -> Measured:
    s, ccfg = ctx.synth, ctx.ccfg
    cov, iou, wr = float(s["mean_coverage"]), float(s["mean_iou"]), float(s["median_width_ratio"])
    holds = cov >= ccfg["min_band_coverage"]
    if wr > ccfg["max_band_width_ratio"]:
        return Measured(
            holds,
            shown=f"coverage {cov:.3f}, band {wr:.3g}x as wide as the true one",
            note=f"precondition fails: a band more than {ccfg['max_band_width_ratio']:g}x as wide as the "
            f"true band covers it trivially (median width ratio {wr:.3g}; {ctx.setting}); see "
            "dpkmeans-fig11-band-iou",
            status=NOT_COMPARABLE,
        )
    return Measured(
        holds, shown=f"coverage {cov:.3f}, IoU {iou:.3f}, width ratio {wr:.3g}", note="" if holds else ctx.iou_note
    )


def band_iou(ctx) -> Measured:
    iou = float(ctx.synth["mean_iou"])
    holds = iou >= ctx.ccfg["min_band_iou"]
    return Measured(holds, shown=f"IoU {iou:.3f} ({ctx.setting})", note="" if holds else ctx.iou_note)


def negative_share(ctx) -> Measured:
    neg_s, neg_t = float(ctx.synth["negative_share_synthetic"]), float(ctx.synth["negative_share_true"])
    holds = neg_s <= neg_t + ctx.ccfg["max_negative_share_gap"]
    return Measured(
        holds,
        shown=f"{100 * neg_s:.2f} % negative (true {100 * neg_t:.2f} %; {ctx.setting})",
        note="" if holds else ctx.neg_note,
    )


# ---- Fig. 10 --------------------------------------------------------------------------------------------------
def lognormal_bic(ctx) -> Measured:
    bic = ctx.bic
    sizes = bic.groupby("cluster")["n"].first() if len(bic) else pd.Series(dtype=float)
    large = sizes[sizes > 25].index
    if not len(large):
        return Measured(
            False,
            shown="no fit",
            note="precondition fails: no cluster has more than 25 houses with a BIC fit",
            status=NOT_COMPARABLE,
        )
    wins = bic[bic["winner"].astype(bool)]
    frac = wins[wins["cluster"].isin(large)].groupby("cluster")["distribution"].apply(lambda s: (s == "lognorm").mean())
    holds = bool((frac >= 0.5).all())
    best = bic[bic["cluster"].isin(large)].groupby(["cluster", "hour"])["bic"].transform("min")
    sub = bic[bic["cluster"].isin(large)].assign(gap=lambda d: d["bic"] - best)
    tie = sub[sub["distribution"] == "lognorm"].groupby("cluster")["gap"].apply(lambda s: (s <= 2.0).mean())
    return Measured(
        holds,
        shown="; ".join(
            f"cluster {k}: lognorm {v:.0%}, most often {wins[wins['cluster'] == k]['distribution'].mode().iloc[0]}"
            for k, v in frac.items()
        ),
        note=""
        if holds
        else "audit (bic.csv): log-normal is within 2 BIC units of the best fit (no positive evidence "
        "against it, Kass-Raftery) in "
        + ", ".join(f"cluster {k}: {v:.0%}" for k, v in tie.items())
        + " of the hours; K-means clusters of a log-normal mixture are truncated mixtures, and "
        "log-normal, inverse Gaussian and log-logistic fits are close at these spreads",
    )


# ---- privacy: calibration, audits, Wishart, Lemma 2 -----------------------------------------------------------
def eq13_calibration(ctx) -> Measured:
    big = ctx.eq13
    return Measured(
        float(big["exact_delta"]),
        reference=float(big["claimed_delta"]),
        note=f"exact Pr(L > eps) = {big['exact_delta']:.4g}, Monte Carlo {big['empirical_delta']:.4g}; "
        "Theorem 2's bound holds only for eps < 1 (audit.csv, exact_delta.csv). Our mechanism uses "
        "the exact PDP calibration (config centroid_noise.calibration)",
    )


def _tail_matches_claim(rows) -> bool:
    """The audit's own verdicts (dpgrid.privacy.audit.tail_audit_row): the samples do not refute the claimed delta
    (``claimed_delta_ge_ci_low``, one-sided) and the exact tail is inside the interval (``exact_in_ci``, two-sided). For rows
    whose exact delta is the claimed one (exact calibration, Theorem 4) that is the claimed delta inside the
    interval: the calibration is private and tight. An empty ``exact_in_ci`` (no exact delta) does not pass."""
    return bool((rows["claimed_delta_ge_ci_low"].eq(True) & rows["exact_in_ci"].eq(True)).all())


def audit_colored(ctx) -> Measured:
    a = ctx.audit
    ex = a[(a["mechanism"] == "colored_centroids") & (a["calibration"] == "exact_pdp")]
    ok = _tail_matches_claim(ex)
    return Measured(ok, note="" if ok else "the Monte Carlo tail misses the claimed delta (audit.csv)")


def audit_labels(ctx) -> Measured:
    lab = ctx.audit[ctx.audit["mechanism"] == "modulo_labels"]
    if not len(lab):
        return Measured(
            False,
            shown="no audit",
            note="precondition fails: no label-sensitive point (Delta_1 = 0) on either dataset, so "
            "there is no neighbour pair to audit",
            status=NOT_COMPARABLE,
        )
    ok = _tail_matches_claim(lab)
    return Measured(ok, note="" if ok else "the Monte Carlo tail misses Theorem 4's delta (audit.csv)")


def exact_delta(ctx) -> Measured:
    ehs = ctx.exact[ctx.exact["calibration"] == "exact_pdp"]
    worst = ehs.loc[(ehs["hockey_stick_delta"] - ehs["delta_budget"]).idxmax()]
    f8 = ehs[ehs["use"] == "fig8 release"].iloc[0]
    ok = bool((ehs["hockey_stick_delta"] <= ehs["delta_budget"] * (1 + 1e-9)).all())
    return Measured(
        ok,
        shown=f"Fig. 8 release: PDP delta_c {f8['pdp_delta']:.3g} -> hockey-stick "
        f"{f8['hockey_stick_delta']:.3g} (the same noise is ({f8['eps_hockey_stick_at_budget_delta']:.3g}, "
        f"{f8['delta_budget']:g})-DP); largest ratio over budgets "
        f"{float(ehs['hs_over_pdp'].max()):.3g}",
        note="" if ok else f"hockey-stick delta above the budget at {worst['use']} (exact_delta.csv)",
    )


def wishart_delta(ctx) -> Measured:
    wa = ctx.wishart
    return Measured(
        float(wa["empirical_delta"]),
        note=f"the output can be impossible under the neighbour (support mismatch): delta = "
        f"1 - exp(-eps/3) = {wa['exact_delta']:.4g}, Monte Carlo {wa['empirical_delta']:.4g} "
        f"[{wa['ci_low']:.3g}, {wa['ci_high']:.3g}] (audit.csv; closed form in "
        "dpgrid.mechanisms.wishart_covariance)",
    )


def lemma2_optimum(ctx) -> Measured:
    """Lemma 2 as printed (eqs. 16-18) vs the optimum of eq. (15), which we solve through its dual."""
    shifts = np.diag(LEMMA2_SHIFTS)
    opt = optimal_colored_design(shifts, tol=1e-9)
    try:
        G = lemma2_closed_form(shifts, 1.0)
        scaled = verify_and_scale(design_from_precision(G, "lemma2"), shifts)
    except ValueError as exc:
        LOG.warning("Lemma 2 check failed: %s", exc)
        return Measured(
            float("nan"),
            shown="undefined",
            reference=opt.primal_unit,
            note=f"Lemma 2's formula is undefined here: {exc}",
            status=NOT_COMPARABLE,
        )
    return Measured(
        float(np.trace(np.linalg.inv(G))),
        reference=opt.primal_unit,
        note=f"eq. (18) as printed violates the constraints (scaled by {scaled.scale_applied:.4g} to be "
        f"feasible: trace {scaled.primal_unit:.4g} vs optimum {opt.primal_unit:.4g}); "
        "we solve eq. (15) through its dual instead; the authors' implementation (CEDSKMeans) is checked "
        "by dpkmeans-lemma2-authors-code when the peers are enabled",
    )


#: Fig. 3 "this noise can easily be filtered out": the filter leaves at most this share of the noise's RMSE
NOISE_LEFT_SHARE = 0.5


def filter_verdict(row) -> tuple[bool, bool]:
    """(noise removed, shape kept) of one reading of Fig. 3's filter (a row of fig3_info.json): the filtered error is
    at most NOISE_LEFT_SHARE of the noisy one, and below a flat line's at the true series' mean (a filter that
    wipes out the daily cycle does no better than that line)."""
    f = float(row["rmse_filtered"])
    return bool(f <= NOISE_LEFT_SHARE * float(row["rmse_noisy"])), bool(f < float(row["rmse_flat"]))


def _filter_text(row) -> str:
    return (
        f"RMSE noisy {row['rmse_noisy']:.3g}, filtered {row['rmse_filtered']:.3g}, flat line {row['rmse_flat']:.3g} kW"
    )


def fig3_filter(ctx) -> Measured:
    """At the paper's window in time (300 samples at its stated one-hour resolution = 300 h): noise removed AND
    the daily shape kept."""
    pit = ctx.pit
    if not np.isfinite(pit["rmse_filtered"]):
        return Measured(
            False,
            shown="no filtered series",
            note=f"the paper's {pit['window_hours']:g}-h window ({pit['window']} samples of {pit['step_minutes']:g} "
            f"min) is longer than the data's series ({pit.get('series_samples', 'too few')} samples) (fig3_info.json)",
            status=NOT_COMPARABLE,
        )
    removed, kept = filter_verdict(pit)
    why = []
    if not removed:
        why.append(f"the filter leaves more than {NOISE_LEFT_SHARE:g} of the noise")
    if not kept:
        why.append(
            f"the {pit['window_hours']:g}-h window ({pit['window']} samples of {pit['step_minutes']:g} min) wipes out "
            "the daily cycle: the filtered series is farther from the true average than a flat line at its mean"
        )
    return Measured(
        removed and kept,
        shown=f"window {pit['window_hours']:g} h: {_filter_text(pit)}",
        note="; ".join(why) + (" (fig3_info.json)" if why else ""),
    )


def fig3_filter_readings(ctx) -> Measured:
    """Fig. 3's own resolution is not stated: the filter at 300 samples of each plausible step."""
    parts, ok_all = [], True
    for row in ctx.pit["readings"]:
        feasible = math.isfinite(float(row["rmse_filtered"]))
        removed, kept = filter_verdict(row) if feasible else (False, False)
        ok_all = ok_all and removed and kept
        state = (
            "window longer than the series"
            if not feasible
            else ("removed + kept" if removed and kept else ("noise left" if not removed else "shape lost"))
        )
        parts.append(
            f"{row['paper_step_minutes']:g} min -> {row['window_hours']:g} h: {state}"
            + (f" ({row['rmse_filtered']:.3g} vs flat {row['rmse_flat']:.3g} kW)" if feasible else "")
        )
    step = float(ctx.pit["step_minutes"])
    finer = sorted(
        {float(r["paper_step_minutes"]) for r in ctx.pit["readings"] if float(r["paper_step_minutes"]) < step}
    )
    if finer:
        # a reading of k-minute data filters 300 k-minute samples; on coarser data the same window holds fewer
        # samples, each averaging more noise-free time: not the filter the reading describes
        return Measured(
            ok_all,
            shown="; ".join(parts),
            status=NOT_COMPARABLE,
            note=f"precondition failed: the readings at {', '.join(f'{m:g}' for m in finer)} min need data at those "
            f"steps; the series has {step:g}-min readings, so their 300-sample windows hold only "
            f"{', '.join(str(max(1, round(300 * m / step))) for m in finer)} samples of it",
        )
    return Measured(
        ok_all,
        shown="; ".join(parts),
        note=""
        if ok_all
        else f"no plausible window both removes sigma = {ctx.pit['sigma']:g} kW of noise and keeps the daily cycle: "
        "a window short enough to keep the cycle averages too few samples",
    )


# ---- Figs. 5, 6, 7, 10: what the paper writes about each figure, on the figure's own table -------------------------
#: Fig. 5 / Sec. III-B-1 "the labels of the points in the periphery of a cluster, and especially those in the
#: vicinity of other clusters": every point of L has a margin (distance to the second-nearest centroid minus to its
#: own) below this quantile of all points' margins
PERIPHERY_QUANTILE = 0.25
#: Fig. 6: a "higher privacy budget" buys a material change: delta_c falls by at least DELTA_DROP somewhere over
#: the eps_c grid at a fixed variance, and the calibrated variance at the largest eps_c is at most VARIANCE_RATIO of
#: that at the smallest, at every delta_c
DELTA_DROP = 0.1
VARIANCE_RATIO = 0.5
#: Fig. 6 (right) "as the sensitivity increases, the expected percent of errors also increases": strictly increasing
#: in Delta_1 at every eps_l, and at least ERROR_GROWTH x higher at the largest Delta_1 than at the smallest
ERROR_GROWTH = 1.1
#: Fig. 7 "close to 7 points that are clear outliers": the removed points stand apart in the MDS map, each at least
#: CLEAR_GAP times as far from the map's median as any other point, and they number 7 +- OUTLIERS_CLOSE_TO
CLEAR_GAP = 1.25
OUTLIERS_CLOSE_TO = 2
#: Fig. 10 "heavy tailed": the median over the hours of the sample excess kurtosis is at least this
HEAVY_KURTOSIS = 1.0


def fig5_setup(ctx) -> Measured:
    g = ctx.gm_info
    holds = int(g["P"]) == 1000 and int(g["K"]) == 6
    if not holds:  # a setting of the run (dpkmeans.gaussian_mixture), not a result
        return Measured(
            holds,
            shown=f"P = {g['P']}, K = {g['K']}",
            status=NOT_COMPARABLE,
            note="precondition failed: the run's Gaussian-mixture setting differs from the paper's P = 1000, K = 6",
        )
    return Measured(holds, shown=f"P = {g['P']}, K = {g['K']}")


def fig5_changed_labels_in_L(ctx) -> Measured:
    p = ctx.gm_points
    in_L = p["in_L"].astype(str).str.lower().eq("true").to_numpy()
    changed = (p["label"] != p["noisy_label"]).to_numpy()
    shown = f"|L| = {int(in_L.sum())} of {len(p)}, labels changed {int(changed.sum())}, outside L {int((changed & ~in_L).sum())}"
    if not in_L.any():
        return Measured(False, shown=shown, status=NOT_COMPARABLE, note="precondition failed: L is empty")
    holds = not (changed & ~in_L).any()
    return Measured(holds, shown=shown, note="" if holds else "a label outside L changed")


def centroid_margins(xy: np.ndarray, centroids: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Distance to the nearest other centroid minus the distance to the point's own centroid."""
    d = np.linalg.norm(xy[:, None, :] - centroids[None, :, :], axis=2)
    own = d[np.arange(len(xy)), labels]
    d[np.arange(len(xy)), labels] = np.inf
    return d.min(axis=1) - own


def fig5_L_on_periphery(ctx) -> Measured:
    p, c = ctx.gm_points, ctx.gm_centroids.sort_values("cluster")
    in_L = p["in_L"].astype(str).str.lower().eq("true").to_numpy()
    if not in_L.any():
        return Measured(False, shown="-", status=NOT_COMPARABLE, note="precondition failed: L is empty")
    m = centroid_margins(p[["x", "y"]].to_numpy(float), c[["x", "y"]].to_numpy(float), p["label"].to_numpy(int))
    fence = float(np.quantile(m, PERIPHERY_QUANTILE))
    worst = float(m[in_L].max())
    holds = worst < fence
    return Measured(
        holds,
        shown=f"largest margin in L {worst:.3g} vs the {PERIPHERY_QUANTILE:g} quantile of all margins {fence:.3g}",
        note="" if holds else "a point of L lies inside its cluster (gm_points.csv)",
    )


def fig6_privacy_needs_budget(ctx) -> Measured:
    v = ctx.fig6_variance.pivot(index="noise_variance", columns="eps_c", values="delta_c_exact").sort_index(axis=1)
    steps = np.diff(v.to_numpy(float), axis=1)
    rises = int((steps > 1e-12).sum())
    drop = float((v.iloc[:, 0] - v.iloc[:, -1]).max())
    holds = rises == 0 and drop >= DELTA_DROP
    return Measured(
        holds,
        shown=f"{rises} rises of delta_c along eps_c over {len(v)} variances; largest fall {drop:.3g}",
        note="" if holds else "delta_c does not fall with eps_c as stated (fig6_variance.csv)",
    )


def fig6_accuracy_needs_budget(ctx) -> Measured:
    n = ctx.fig6_noise[ctx.fig6_noise["calibration"] == "exact_pdp"]
    v = n.pivot(index="delta_c", columns="eps_c", values="noise_variance").sort_index(axis=1)
    falls = bool((np.diff(v.to_numpy(float), axis=1) < 0).all())
    ratio = float((v.iloc[:, -1] / v.iloc[:, 0]).max())
    holds = falls and ratio <= VARIANCE_RATIO
    return Measured(
        holds,
        shown=f"variance falls along eps_c at every delta_c: {'yes' if falls else 'no'}; largest ratio "
        f"var(eps_c = {v.columns[-1]:g}) / var(eps_c = {v.columns[0]:g}) = {ratio:.3g}",
        note="" if holds else "the calibrated variance does not fall materially with eps_c (fig6_noise.csv)",
    )


def fig6_errors_grow_with_sensitivity(ctx) -> Measured:
    lab = ctx.fig6_labels.pivot(index="delta_1", columns="eps_l", values="expected_error_pct").sort_index()
    a = lab.to_numpy(float)
    rising = bool((np.diff(a, axis=0) > 0).all())
    growth = float((a[-1] / a[0]).min())
    holds = rising and growth >= ERROR_GROWTH
    return Measured(
        holds,
        shown=f"strictly increasing in Delta_1 at every eps_l: {'yes' if rising else 'no'}; smallest growth "
        f"{growth:.3g}x from Delta_1 = {lab.index[0]:g} to {lab.index[-1]:g}",
        note="" if holds else "the expected percent of errors does not grow materially with Delta_1 (fig6_labels.csv)",
    )


@at_paper_sizes
def fig7_clear_outliers(ctx) -> Measured:
    m = ctx.mds[(ctx.mds["dataset"] == "with_outliers") & (ctx.mds["kind"] == "point")]
    xy = m[["x", "y"]].to_numpy(float)
    dist = np.linalg.norm(xy - np.median(xy, axis=0), axis=1)
    removed = m["is_outlier"].astype(str).str.lower().eq("true").to_numpy()
    if not removed.any() or removed.all():
        return Measured(False, shown="-", status=NOT_COMPARABLE, note="precondition failed: no point removed")
    gap = float(dist[removed].min() / dist[~removed].max())
    n = int(removed.sum())
    holds = bool(gap >= CLEAR_GAP and abs(n - PAPER_VALUES["n_outliers"]) <= OUTLIERS_CLOSE_TO)
    shown = (
        f"{n} removed points; the nearest of them is {gap:.3g} x as far from the MDS median as the farthest other point"
    )
    return Measured(
        holds,
        shown=shown,
        note=""
        if holds
        else f"the removed points do not stand apart (gap < {CLEAR_GAP:g}) or are not close to "
        f"{PAPER_VALUES['n_outliers']} (mds.csv)",
    )


def excess_kurtosis(x: np.ndarray) -> float:
    x = np.asarray(x, float)
    c = x - x.mean()
    v = float(np.mean(c**2))
    return float(np.mean(c**4) / v**2 - 3.0) if v > 0 else math.nan


@at_paper_sizes
def fig10_heavy_tails(ctx) -> Measured:
    t = ctx.profiles_true
    hours = [c for c in t.columns if re.fullmatch(r"h\d\d", c)]
    d = len(hours)
    parts, big_ok, small_heavy = [], True, 0
    for k, g in t.groupby("cluster"):
        kurt = float(np.nanmedian([excess_kurtosis(g[h].to_numpy(float)) for h in hours]))
        heavy = kurt >= HEAVY_KURTOSIS
        if len(g) > d:
            big_ok = big_ok and heavy
        else:
            small_heavy += heavy
        parts.append(f"cluster {k} ({len(g)} homes): {kurt:.2g}")
    holds = big_ok and small_heavy == 0
    n_small = sum(len(g) <= d for _, g in t.groupby("cluster"))
    if n_small != len(SMALL_CLUSTERS):
        # the statement excepts the paper's two small clusters: with another number of them it does not apply
        return Measured(
            holds,
            shown="median excess kurtosis over the hours: " + "; ".join(parts),
            status=NOT_COMPARABLE,
            note=f"precondition failed: {n_small} clusters with no more homes than hours, the paper excepts "
            f"{len(SMALL_CLUSTERS)}",
        )
    return Measured(
        holds,
        shown="median excess kurtosis over the hours: " + "; ".join(parts),
        note=""
        if holds
        else "a cluster with more homes than hours is not heavy tailed, or a small one is (profiles_true.csv)",
    )


def fig8_budget(ctx) -> Measured:
    rel, budget = ctx.rel, ctx.budget
    shown = f"({rel['eps_total']:g}, {rel['delta_total']:.4g})"
    eps, delta = PAPER_TOTAL_BUDGET
    ok = math.isclose(rel["eps_total"], eps) and abs(rel["delta_total"] - delta) <= 1e-9
    if tuple(map(float, budget)) != PAPER_BUDGET:
        return Measured(
            ok,
            shown=shown,
            note=f"precondition fails: the release budget dpkmeans.release = {budget} is not the paper's {PAPER_BUDGET}",
            status=NOT_COMPARABLE,
        )
    return Measured(
        ok, shown=shown, note="" if ok else "Theorem 4's delta_l of the label noise is not 0 at rho (release.json)"
    )
