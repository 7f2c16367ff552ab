"""The measures of the dpkmeans claims (Ravi et al., Sec. V-VI, Figs. 9 and 11; the claims about what Figs. 3 and
5-10 show: :mod:`.figure_measures`): one function per claim (or a factory), each computing a
:class:`~dpgrid.core.claims.Measured` value from the context of :mod:`.claims_context`.

Every measure states its precondition and returns ``not comparable`` (with the reason) when it fails, so that no
check passes vacuously; with the paper-matched stand-in the data facts it is built from and the Delta_c it is
calibrated on are ``calibration target`` rows.
"""

from __future__ import annotations

import functools
import logging

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
        "(workflow/papers/dpkmeans/dpkmeans.md, Peers)",
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
