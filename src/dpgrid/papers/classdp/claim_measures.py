"""The measures of the classdp claims (:data:`dpgrid.papers.classdp.claims.CLAIMS`; Ramakrishna et al.,
*Differential Privacy for Class-based Data*, Figs. 1-4): each reads the run's
:class:`~dpgrid.papers.classdp.claims_context.ClaimsContext` and returns a :class:`~dpgrid.core.claims.Measured`,
stating its precondition (a ``not comparable`` row says which failed) and, for a held-out prediction that differs,
the sweep that explains it.
"""

from __future__ import annotations

import numpy as np

from dpgrid.core.claims import (
    CALIBRATION,
    NOT_COMPARABLE,
    Measured,
    within_printed_precision,
)
from dpgrid.papers.classdp.claims_context import (
    INFORMATIVE,
    RESOLVED,
    TN,
    curve,
    delta_at,
    explanation,
    margins,
    mean_gains,
    mse_note,
    sweep_note,
)
from dpgrid.papers.classdp.paper import (
    CALIBRATION_TARGET,
    FIG3,
    FIG3_NMSE,
    NO_NOISE_DELTA,
    PLAIN_MSE,
    TRADEOFF_EPSILON,
)


def _failed(value, reason: str, shown: str | None = None) -> Measured:
    """A claim whose precondition fails: not comparable, with the reason."""
    return Measured(value, shown=shown, note=f"precondition failed: {reason}", status=NOT_COMPARABLE)


def _held_out(ctx, *explanations: str) -> str:
    """The note of a held-out prediction on the stand-in, with the (non-empty) explanations of a difference."""
    return "held-out prediction on the " + "; ".join([ctx.data, *(x for x in explanations if x)])


def below(fig: str, upper: str, differs: str):
    """'The proposed delta is below ``upper``'s at every eps and rho' on figure ``fig``'s curves; ``differs`` is
    the note when it is not (``{data}``: the households).  The no-noise curve has no rho: it is compared with the
    proposed curve of every rho."""

    def measure(ctx) -> Measured:
        df, rhos = ctx.curves[fig], ctx.rhos[fig]
        ok, reason = ctx.informative[fig, upper]
        if not ok:
            return _failed(False, reason, shown="-")
        if upper == "no_noise":
            base = curve(df, upper)
            m = np.concatenate([(base - curve(df, "proposed", r)).to_numpy() for r in rhos])
        else:
            m = margins(df, upper, "proposed", rhos)
        worst = float(m.min())
        holds = worst > RESOLVED * ctx.tol
        return Measured(
            holds,
            shown=f"{'holds' if holds else 'does not hold'} (min margin {worst:.3g})",
            note="" if holds else differs.format(data=ctx.data),
        )

    return measure


def gain_shrinks_with_rho(ctx) -> Measured:
    rhos = ctx.rhos["fig2"]
    gains = mean_gains(ctx.curves["fig2"], rhos)
    if len(rhos) < 2 or max(gains) - min(gains) <= RESOLVED * ctx.tol:
        return _failed(
            False,
            "needs >= 2 rho with gains that differ by more than the evaluator's accuracy",
            shown="mean gain per rho: " + ", ".join(f"{g:.3g}" for g in gains),
        )
    dec = bool(np.all(np.diff(gains) <= RESOLVED * ctx.tol))
    return Measured(
        dec,
        shown="mean gain per rho: " + ", ".join(f"{g:.3f}" for g in gains),
        note=""
        if dec
        else "depends on the Wishart draw of the covariances, which differs from the paper's (Sec. VI-A prints no "
        "covariances)",
    )


#: "much better performance" (Sec. VI-B-2): a material mean gain of the proposed delta over white noise at the
#: smallest rho. The paper's printed gaps at rho = 0.68571 are 0.8 - 0.72 = 0.08 (eps 0.1) and 0.6 - 0.35 = 0.25
#: (eps 1); half the smaller one is the least gain the sentence allows.
MATERIAL_GAIN = 0.04


def gain_largest_at_small_rho(ctx) -> Measured:
    """The paper's remark (Sec. VI-B-2): the proposed mechanism is "much better", "especially when ... rho is small":
    the gain over white noise is largest at the smallest rho AND material there (>= MATERIAL_GAIN)."""
    ok, reason = ctx.informative["fig4", "white"]
    rhos = sorted(ctx.rhos["fig4"])
    gains = mean_gains(ctx.curves["fig4"], rhos)
    if not ok or len(rhos) < 2:
        return _failed(False, reason or "needs >= 2 rho", shown="-")
    shown = "mean gain per rho (ascending): " + ", ".join(f"{g:.3g}" for g in gains)
    if max(gains) <= RESOLVED * ctx.tol:
        # no rho where the proposed mechanism gains over white noise: 'the gain is largest at small rho' would
        # compare losses (the classdp-fig4-proposed-below-white row says the order does not hold)
        return _failed(
            False,
            f"the proposed mechanism has no gain over white noise at any rho (largest mean gain {max(gains):.3g} "
            f"<= {RESOLVED:g} x the evaluator tolerance {ctx.tol:g}): there is no gain to locate ({ctx.data})",
            shown=shown,
        )
    largest = gains[0] >= max(gains) - RESOLVED * ctx.tol
    material = gains[0] >= MATERIAL_GAIN
    why = []
    if not largest:
        why.append(f"the largest gain is at rho = {rhos[int(np.argmax(gains))]:g}")
    if not material:
        why.append(
            f"the gain at rho = {rhos[0]:g} is {gains[0]:.3g}, below the material gain {MATERIAL_GAIN:g} that 'much "
            "better performance' implies (the curves lie on top of each other)"
        )
    return Measured(
        largest and material,
        shown=shown,
        note=""
        if largest and material
        else f"{'; '.join(why)} ({ctx.data}); {explanation(ctx.info.source, 'forecastability')}",
    )


def no_noise_delta(ctx) -> Measured:
    nn_min = float(curve(ctx.curves["fig4"], "no_noise").min())
    if not ctx.matched:
        return _failed(nn_min, ctx.why_not)
    if nn_min >= NO_NOISE_DELTA - TN:
        return Measured(nn_min)
    # the no-noise curve is flat in eps: the sweep's point at eps = 1 stands for it
    return Measured(
        nn_min,
        note=_held_out(
            ctx,
            sweep_note(ctx.sweep, "no_noise", np.nan, 1.0) or explanation(ctx.info.source, "similarity"),
            explanation(ctx.info.source, "forecastability"),
        ),
    )


def tradeoff(ctx) -> Measured:
    """At eps = TRADEOFF_EPSILON the proposed delta decreases as rho grows (beyond the evaluator's accuracy)."""
    rhos = sorted(ctx.rhos["fig4"])
    vals = [delta_at(ctx.curves["fig4"], "proposed", r, TRADEOFF_EPSILON) for r in rhos]
    ok, reason = ctx.informative["fig4", "white"]
    if not ok:
        # the gate of the neighbouring Fig. 4 rows: on data whose white-noise curve does not leave 1 the proposed
        # deltas sit within a few 1e-5 of 1 too (printed 1.0000), and their order along rho says nothing
        return _failed(
            False,
            reason,
            shown="-"
            if any(v is None for v in vals)
            else ", ".join(f"rho {r:g}: {_delta_text(v)}" for r, v in zip(rhos, vals)),
        )
    if any(v is None for v in vals) or len(vals) < 2 or max(vals) - min(vals) <= INFORMATIVE * ctx.tol:
        return _failed(
            False,
            f"needs eps = {TRADEOFF_EPSILON:g} on the grid, >= 2 rho, and deltas that differ by more than "
            f"{INFORMATIVE:g} x the evaluator tolerance {ctx.tol:g} (otherwise any flat curve would pass)",
            shown="-" if any(v is None for v in vals) else ", ".join(f"{v:.6g}" for v in vals),
        )
    trade = all(a >= b - RESOLVED * ctx.tol for a, b in zip(vals, vals[1:]))
    return Measured(
        trade,
        shown=", ".join(f"rho {r:g}: {_delta_text(v)}" for r, v in zip(rhos, vals)),
        note="" if trade else f"the proposed delta at eps = {TRADEOFF_EPSILON:g} increases somewhere along rho",
    )


def tradeoff_every_eps(ctx) -> Measured:
    """Sec. VI-B-2's general statement: "with rho increasing ..., the (eps, delta) privacy is strengthened": at every eps
    of the grid the proposed delta falls at every step of rho, each fall larger than the evaluator's accuracy (the
    strict reading; the eps = TRADEOFF_EPSILON row checks the sentence about eps = 1 alone)."""
    df, rhos = ctx.curves["fig4"], sorted(ctx.rhos["fig4"])
    ok, reason = ctx.informative["fig4", "white"]
    if not ok or len(rhos) < 2:
        # the gate of tradeoff: with the white curve at 1 the proposed deltas sit near 1 too and their order is noise
        return _failed(False, reason or "needs >= 2 rho", shown="-")
    table = np.vstack([curve(df, "proposed", r).to_numpy() for r in rhos])  # rho x eps
    eps = curve(df, "proposed", rhos[0]).index.to_numpy(float)
    falls = -np.diff(table, axis=0)  # delta(rho_i) - delta(rho_i+1), per eps
    least = falls.min(axis=0)  # the smallest fall along rho, per eps
    need = RESOLVED * ctx.tol
    bad = eps[least <= need]
    holds = bad.size == 0
    shown = (
        f"delta falls at every rho step at {eps.size - bad.size} of {eps.size} eps; smallest fall "
        f"{float(least.min()):.3g} (eps = {eps[int(np.argmin(least))]:g}), largest {float(least.max()):.3g}"
    )
    return Measured(
        holds,
        shown=shown,
        note=""
        if holds
        else f"the proposed delta does not fall (by more than {need:.2g}) at every rho step at eps = "
        + ", ".join(f"{e:g}" for e in bad[:5])
        + (f" and {bad.size - 5} more" if bad.size > 5 else "")
        + f" ({ctx.data})",
    )


def _delta_text(delta: float) -> str:
    """A delta to 4 decimals, or as ``1 - x`` where it would print as 1.0000 (the readable part is 1 - delta)."""
    return f"{delta:.4f}" if delta < 0.99995 else f"1 - {1.0 - delta:.2g}"


def printed_delta(p):
    """A Fig. 4 delta printed in Sec. VI-B-2 (paper.FIG4_POINTS); the calibration target is one of them."""

    def measure(ctx) -> Measured:
        got = delta_at(ctx.curves["fig4"], p.mechanism, p.rho, p.epsilon)
        if got is None:
            return _failed(
                float("nan"),
                f"rho = {p.rho:g}, eps = {p.epsilon:g} is not on the configured grid "
                "(classdp.forecast.rhos / epsilon_grid)",
            )
        if not ctx.matched:
            return _failed(got, ctx.why_not)
        if p is CALIBRATION_TARGET:
            # missed beyond the printed precision -> 'calibration missed' (dpgrid.core.claims)
            return Measured(
                got,
                status=CALIBRATION,
                note=f"the stand-in's within-cluster similarity ({ctx.info.similarity:g}) was calibrated on this "
                f"number (python -m dpgrid.papers.classdp.calibration); this run is off by {got - p.value:+.3g}; "
                + explanation(ctx.info.source, "similarity"),
            )
        return Measured(
            got,
            note=_held_out(
                ctx,
                _calibration_missed(ctx) if p.rho == CALIBRATION_TARGET.rho else "",
                sweep_note(ctx.sweep, p.mechanism, p.rho, p.epsilon),
                explanation(ctx.info.source, "forecastability"),
                explanation(ctx.info.source, "inconsistent") if p.rho == FIG3["rho"] else "",
            ),
        )

    return measure


def _calibration_missed(ctx) -> str:
    """The note of a row at the calibration target's rho when the run misses the target beyond its printed
    precision: the row rests on a stand-in that does not reproduce the number it was built on."""
    c = CALIBRATION_TARGET
    got = delta_at(ctx.curves["fig4"], c.mechanism, c.rho, c.epsilon)
    if got is None or within_printed_precision(got, c.value):
        return ""
    return (
        f"rests on a missed calibration: the {c.mechanism} delta at rho = {c.rho:g}, eps = {c.epsilon:g} the stand-in "
        f"was calibrated on is {got:.3g}, printed {c.value:g} (classdp-fig4-white-rho{c.rho:g}-eps{c.epsilon:g})"
    )


def fig1_setup(ctx) -> Measured:
    """Fig. 1 (Sec. VI-A): four classes, 2-D queries, class means on a line (the smallest singular value of the
    centred means is below 1e-9 of the largest)."""
    m = ctx.fig1_model
    sv = np.linalg.svd(m.means - m.means.mean(0), compute_uv=False)
    collinear = bool(m.means.shape[1] == 2 and sv[-1] <= 1e-9 * max(sv[0], 1e-300))
    holds = collinear and m.n == 4 and m.k == 2
    return Measured(
        holds,
        shown=f"{m.n} classes, {m.k}-D queries, singular values of the centred means {', '.join(f'{v:.3g}' for v in sv)}",
        note="" if holds else "the configured synthetic classes are not four 2-D classes with collinear means",
    )


def fig1_wishart(ctx) -> Measured:
    """Fig. 1: every class covariance is a draw of W(I, 2) in 2-D: symmetric positive definite (a Wishart draw with
    2 degrees of freedom in 2-D is positive definite with probability 1)."""
    covs = ctx.fig1_model.covs
    sym = bool(np.allclose(covs, np.transpose(covs, (0, 2, 1))))
    low = float(min(np.linalg.eigvalsh(c).min() for c in covs))
    holds = sym and low > 0
    return Measured(
        holds,
        shown=f"symmetric: {'yes' if sym else 'no'}, smallest eigenvalue {low:.3g}",
        note="" if holds else "a class covariance is not symmetric positive definite",
    )


def fig2_tradeoff(ctx) -> Measured:
    """Fig. 2: larger rho gives better privacy: the proposed delta, averaged over the eps grid, decreases as rho
    grows, by more than the evaluator's accuracy at every step."""
    df, rhos = ctx.curves["fig2"], sorted(ctx.rhos["fig2"])
    means = [float(curve(df, "proposed", r).mean()) for r in rhos]
    steps = np.diff(means)
    holds = len(means) >= 2 and bool(np.all(steps < -RESOLVED * ctx.tol))
    return Measured(
        holds,
        shown="mean proposed delta per rho (ascending): " + ", ".join(f"{v:.3g}" for v in means),
        note="" if holds else "the proposed delta does not fall at every step of rho",
    )


#: The paper's own release / forecast error ratios of the Fig. 3 houses: the journal's normalised MSE of the release
#: (FIG3_NMSE) over the earlier version's MSE of the same houses' ARMA forecasts (PLAIN_MSE): 5.9, 5.3, 8.4.  Both
#: printed numbers fall on one scale, the closest reading of each being the same one (nmse_log_w,
#: forecast/mse_definitions.csv), so this is how much error the paper's sentence calls "not significant"; the pair
#: comes from two versions and an undefined MSE, so it bounds the factor rather than pins it.
PAPER_RELEASE_FORECAST_RATIOS = tuple(r / f for r, f in zip(FIG3_NMSE, PLAIN_MSE))
#: Fig. 3 "does not sacrifice the accuracy of forecasts significantly": the release's expected normalised MSE is at
#: most this many times the forecast's own (the noise adds at most as much error as the forecast already has).  It is
#: below every ratio of the paper's own houses (PAPER_RELEASE_FORECAST_RATIOS, smallest 5.3), so a row that holds
#: says no more than the paper's sentence does of its own numbers; it is not looser than the sentence's plain words
#: either ("significantly": the error at most doubles).
RELEASE_ERROR_FACTOR = 2.0
#: The note of the release row: where its factor comes from.
RELEASE_FACTOR_NOTE = (
    f"factor {RELEASE_ERROR_FACTOR:g}: below the paper's own release / forecast ratios of Houses 1-3 ("
    + ", ".join(f"{r:.2g}" for r in PAPER_RELEASE_FORECAST_RATIOS)
    + ": the journal's release NMSE over the earlier version's forecast MSE, read as one measure, as the runs' "
    "closest readings of both are the same, nmse_log_w), which the paper calls not significant"
)


def release_keeps_accuracy(ctx) -> Measured:
    """Fig. 3: every shown house's release error (expected over noise draws) within RELEASE_ERROR_FACTOR x the
    forecast's, both normalised MSEs of table_mse."""
    m = ctx.mse
    if "nmse_forecast" not in m.columns or "nmse_proposed_expected" not in m.columns:
        return _failed(False, "table_mse has no nmse_forecast / nmse_proposed_expected", shown="-")
    ratio = (m["nmse_proposed_expected"] / m["nmse_forecast"]).to_numpy(float)
    holds = bool((ratio <= RELEASE_ERROR_FACTOR).all())
    shown = "release / forecast NMSE: " + ", ".join(f"{h} {r:.3g}" for h, r in zip(m["house"], ratio))
    if not ctx.matched:
        return _failed(holds, ctx.why_not, shown=shown)
    return Measured(
        holds,
        shown=shown,
        note=RELEASE_FACTOR_NOTE
        if holds
        else _held_out(
            ctx, f"the release noise multiplies a house's forecast error by more than {RELEASE_ERROR_FACTOR:g}"
        )
        + f"; {RELEASE_FACTOR_NOTE}",
    )


def fig3_delta(ctx) -> Measured:
    """The Fig. 3 release's delta (first row of table_mse), at the caption's rho and eps."""
    release = ctx.mse.iloc[0]
    d3 = float(release["delta"])
    cluster = (
        f"delta of House 1's cluster alone {release['delta_cluster']:.4g}" if "delta_cluster" in ctx.mse.columns else ""
    )
    if not (np.isclose(ctx.fig3_rho, FIG3["rho"]) and np.isclose(ctx.fig3_epsilon, FIG3["epsilon"])):
        return _failed(
            d3,
            f"Fig. 3 is configured at rho = {ctx.fig3_rho:g}, eps = {ctx.fig3_epsilon:g}, the paper's is "
            f"rho = {FIG3['rho']:g}, eps = {FIG3['epsilon']:g}",
        )
    if not ctx.matched:
        return _failed(d3, "; ".join(x for x in (ctx.why_not, cluster) if x))
    return Measured(
        d3,
        note=_held_out(
            ctx,
            cluster,
            explanation(ctx.info.source, "inconsistent"),
            sweep_note(ctx.sweep, "proposed", FIG3["rho"], FIG3["epsilon"]),
            explanation(ctx.info.source, "forecastability"),
        ),
    )


def house_mse(k: int, printed: tuple[float, ...], column: str, prediction: str, expected: str | None = None):
    """House ``k + 1``'s printed Fig. 3 value: ours from ``table_mse[column]`` (``expected``: the column of its
    expectation over noise draws, named in the note), the note naming the closest reading of the paper's undefined
    MSE (``prediction`` in forecast/mse_definitions.csv)."""

    def measure(ctx) -> Measured:
        if k >= len(ctx.mse):
            return _failed(
                np.nan,
                f"not applicable: House {k + 1} needs >= {k + 1} Fig. 3 households (classdp.forecast.fig3_households "
                f"among the usable households); the run has {len(ctx.mse)}",
            )
        row = ctx.mse.iloc[k]
        note = "; ".join(
            x
            for x in (
                f"expected value over draws {row[expected]:.4g}" if expected else "",
                mse_note(ctx.mse_defs, f"House {k + 1}", prediction, printed[k]) or explanation(ctx.info.source, "mse"),
                explanation(ctx.info.source, "forecastability"),
            )
            if x
        )
        if not ctx.matched:
            return _failed(float(row[column]), f"{ctx.why_not}; {note}")
        return Measured(float(row[column]), note=_held_out(ctx, note))

    return measure


# ------------------------------------------------------------------------------------------
# the claims, as data
