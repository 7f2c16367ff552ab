"""Claims table rows of the blowfish paper (results/blowfish/claims.csv)."""

from __future__ import annotations

import math

from dpgrid.core.claims import NOT_COMPARABLE, ClaimSpec, Measured, evaluate_claims, fmt, write_claims
from dpgrid.papers.blowfish.claims_context import claims_context
from dpgrid.papers.blowfish.day import MECHANISMS
from dpgrid.papers.blowfish.paper import PAPER, PAPER_RATIO, PAPER_RMSRE
from dpgrid.privacy.audit_table import privacy_audit_spec

#: the adversary claim holds when the information gain exceeds zero by this many standard errors over seeds
ADVERSARY_Z = 2.0


#: The paper's privacy statement that its black-box audit row checks (results/privacy_audits.csv).
PRIVACY_STATEMENT = "Theorem 1: Algorithm 1 is (eps, Blowfish)-private at every time step"


def _rmsre(m: str):
    def measure(ctx) -> Measured:
        runs = ctx.runs
        n, v = len(runs), runs[f"rmsre_printed_{m}"]
        sd = float(v.std(ddof=1)) if n > 1 else 0.0
        return Measured(
            float(v.mean()),
            note=(
                f"mean over {n} seeds (sd {fmt(sd, 3)} = {fmt(100 * sd / float(v.mean()), 2)} % of the mean, range "
                f"{fmt(float(v.min()), 3)}-{fmt(float(v.max()), 3)}); noise-averaged value "
                f"{fmt(float(runs[f'expected_rmsre_printed_{m}'].mean()), 4)}; plain RMS relative error = "
                f"sqrt(T) x printed = {fmt(float(runs[f'rms_relative_{m}'].mean()), 3)}"
            ),
        )

    return measure


#: "low compared to the observed rate range" (Sec. IV-B): each mechanism's RMS relative error per step is below
#: this share of the day's relative rate range (max - min) / mean of the optimal rates (an order of magnitude)
LOW_SHARE_OF_RANGE = 0.1


def _rmsre_magnitude(ctx) -> Measured:
    """Both RMSREs of order 1e-3 as printed, and low against the rate range: the plain RMS relative error per step
    (sqrt(T) x the printed formula) below LOW_SHARE_OF_RANGE of the day's relative rate range (profiles.csv)."""
    mags = [math.floor(math.log10(ctx.runs[f"rmsre_printed_{m}"].mean())) for m in MECHANISMS]
    g = ctx.profiles.groupby("seed")["rate_optimal"]
    rel_range = float(((g.max() - g.min()) / g.mean()).mean())
    errs = [float(ctx.runs[f"rms_relative_{m}"].mean()) for m in MECHANISMS]
    low = all(e < LOW_SHARE_OF_RANGE * rel_range for e in errs)
    return Measured(
        all(e == -3 for e in mags) and low,
        shown=f"1e{mags[0]} / 1e{mags[1]}; RMS relative error per step "
        + " / ".join(fmt(e, 3) for e in errs)
        + f" against the relative rate range {fmt(rel_range, 3)} ("
        + " / ".join(f"{100 * e / rel_range:.1f} %" for e in errs)
        + ")",
        note="" if low else f"an error is not below {LOW_SHARE_OF_RANGE:g} of the relative rate range",
    )


def _ratio(ctx) -> Measured:
    runs, n = ctx.runs, len(ctx.runs)
    re, rs = runs["ratio_expected"], runs["ratio_printed"]
    return Measured(
        float(re.mean()),
        note=(
            f"expected (noise averaged) ratio over {n} seeds in the default setting (no degenerate priors); "
            f"sampled ratio with {ctx.cfg['noise_coupling']} noise draws: mean {fmt(float(rs.mean()), 3)}, "
            f"sd {fmt(float(rs.std(ddof=1)) if n > 1 else 0.0, 3)}, range {fmt(float(rs.min()), 3)}-{fmt(float(rs.max()), 3)}; "
            "a single run cannot resolve a 5.5 % difference (see table_zero_sweep for when the gain is real)"
        ),
    )


def _leq_naive(ctx) -> Measured:
    runs = ctx.runs
    if runs.empty:  # 'at every step of every seed' holds for no seed at all
        return Measured(False, shown="-", note="precondition failed: no seed was run", status=NOT_COMPARABLE)
    lam_ok = bool(runs["lambda_blowfish_leq_naive"].all())
    exp_ok = bool((runs["expected_rmsre_printed_blowfish"] <= runs["expected_rmsre_printed_naive"]).all())
    k = int((runs["rmsre_printed_blowfish"] <= runs["rmsre_printed_naive"]).sum())
    return Measured(
        lam_ok and exp_ok,
        shown=(
            f"lambda_B <= lambda_N at every step of every seed: {fmt(lam_ok)}; expected RMSRE "
            f"B <= N in all seeds: {fmt(exp_ok)}; sampled RMSRE B <= N in {k} of {len(runs)} seeds"
        ),
        note="" if lam_ok and exp_ok else "lambda or expected RMSRE of Blowfish exceeds naive",
    )


def _theorem2_total_eps(ctx) -> Measured:
    total = float(ctx.runs["eps_total_theorem2"].iloc[0])
    return Measured(total, note="" if total == 48.0 else "config differs from the paper's eps or T")


#: The note of the zero-sweep row: it explains a number, it reproduces no statement of the paper.
BEYOND_THE_PAPER = (
    "beyond the paper: it explains blowfish_ratio (the paper states no such dependence; its sentence that the "
    "discriminating term is the set over which the maximum bound is taken describes Algorithm 1, whose consequence "
    "blowfish_leq_naive checks)"
)


def _zero_dependence(ctx) -> Measured:
    """What the printed 5.5 % gain depends on, from the zero-probability sweep. Beyond the paper (the paper does not
    state it): never 'reproduced', the note says whether it holds in this run."""
    sweep = ctx.sweep
    no_degenerate = sweep[sweep["mean_kappa_fraction"] == 1.0]  # no household ever has a certain state
    with_gain = sweep.groupby(["initial", "threshold"], sort=False)["ratio_expected"].mean().reset_index()
    reach = with_gain[with_gain["ratio_expected"] >= PAPER_RATIO]
    max_nd = float(no_degenerate["ratio_expected"].max()) if len(no_degenerate) else float("nan")
    best = with_gain.loc[with_gain["ratio_expected"].idxmax()]
    reach_txt = (
        "; ".join(f"{r.initial} at threshold {fmt(r.threshold, 3)}" for r in reach.itertuples())
        if len(reach)
        else "no swept setting"
    )
    if len(no_degenerate) == 0:
        # 'no gain without certain households' needs a swept setting without them; with none it held vacuously
        return Measured(
            False,
            shown=f">= 5.5 % reached by: {reach_txt}",
            note="precondition failed: no swept setting has every household's state uncertain (mean_kappa_fraction "
            "= 1), so what the gain needs cannot be told from this sweep (blowfish.zero_sweep)",
            status=NOT_COMPARABLE,
        )
    holds = bool(max_nd < 1.01)
    spread_txt = ""
    if len(reach):
        first = reach.iloc[0]
        pts = sweep[(sweep["initial"] == first.initial) & (sweep["threshold"] == first.threshold)]
        spread_txt = (
            f"; at {first.initial}, threshold {fmt(first.threshold, 3)} the gain ranges over seeds from "
            f"{fmt(100 * (pts['ratio_expected'].min() - 1), 2)} % to {fmt(100 * (pts['ratio_expected'].max() - 1), 2)} % "
            f"with {fmt(100 * pts['mean_kappa_fraction'].min(), 3)}-{fmt(100 * pts['mean_kappa_fraction'].max(), 3)} % "
            "of household-steps protected"
        )
    return Measured(
        holds,
        shown=(
            f"when no household's state is ever certain (kappa^t = all N) the expected gain is at most "
            f"{fmt(100 * (max_nd - 1), 3)} %; "
            f"largest: {fmt(100 * (best.ratio_expected - 1), 3)} % ({best.initial}, threshold {fmt(best.threshold, 3)}); "
            f">= 5.5 % reached by: {reach_txt}{spread_txt}"
        ),
        status=NOT_COMPARABLE,
        note=f"{BEYOND_THE_PAPER}; it {'holds' if holds else 'does not hold'} in this run: "
        + (
            "the mechanism's gain needs states of zero prior probability. The paper "
            "does not state the clipping rule, perturbation sd or initial law, so the printed 5.5 % itself is not "
            "pinned (blowfish_ratio). Exact-zero transitions alone do nothing (most households have one at "
            "threshold 0); the gain needs households whose state is certain: a degenerate initial prior plus "
            "exact-zero night get-up probabilities for (almost) all households, so that only a handful stay "
            "uncertain through the night. Because lambda^t is a maximum over kappa^t, one uncertain household with "
            "u_h near 1 cancels the gain, which makes it a lottery near the printed value; with positive "
            "transitions Blowfish = naive up to alpha (u_max - max_h u_h)"
            if holds
            else "a setting without certain households shows a gain of 1 % or more"
        ),
    )


def _adversary(ctx) -> Measured:
    """Sec. II-A/II-C: a third party observing the exact rates can infer households' occupancy. Holds when the
    adversary's information gain over the prior from the unperturbed (``no_noise``) rates is positive with
    confidence (mean over seeds minus ``ADVERSARY_Z`` standard errors > 0) in at least one population."""
    adv, z = ctx.adversary, ADVERSARY_Z
    g = adv.groupby(["population", "households", "release"], sort=False)[
        ["accuracy_gain", "information_gain_bits"]
    ].mean()
    parts = [
        f"N={n}: "
        + ", ".join(
            f"{rel} {fmt(100 * g.loc[(pop, n, rel), 'accuracy_gain'], 2)} pp / "
            f"{fmt(g.loc[(pop, n, rel), 'information_gain_bits'], 2)} bit"
            for rel in ("no_noise", "naive", "blowfish")
        )
        for pop, n in dict.fromkeys((p, n) for p, n, _ in g.index)
    ]
    exact = adv[adv["release"] == "no_noise"].groupby(["population", "households"], sort=False)["information_gain_bits"]
    lower = exact.mean() - z * exact.std(ddof=1).fillna(float("inf")) / exact.count() ** 0.5
    leaks = [f"N={n}" for (_, n), lo in lower.items() if lo > 0]
    holds = bool(leaks)
    return Measured(
        holds,
        shown=(
            "gain over the prior (accuracy pp / information bits per household-step): "
            + "; ".join(parts)
            + f"; exact rates leak with confidence at: {', '.join(leaks) or 'no population'}"
        ),
        note=(
            "per-household forward filter, mean-field for the main population, joint filter over all 2^N states for "
            "the small one; with N in the hundreds the other households' consumption hides each household almost "
            "entirely even in the exact rate (the leak is thousandths of a bit), with N = 10 the exact rate leaks "
            "and both mechanisms' noise removes most of it"
            if holds
            else "the exact rates give no information gain over the prior at the stated confidence"
        ),
    )


#: Fig. 2(a) "the four periods of the day can be recognized clearly by the sharp occupancy changes": within the
#: first hour of every period the mean occupancy changes by at least this share of the households
SHARP_CHANGE = 0.2
#: Fig. 2(c) "a smaller noise parameter than the naive mechanism in some time steps": lambda_blowfish is below
#: lambda_naive by at least this relative margin in at least one step of the drawn day
SMALLER_LAMBDA = 0.01


def _period_changes(prof, periods) -> list[tuple[str, float]]:
    """(period name, |change of the mean occupancy from the step before the period to the last step of its first hour|), mean over
    the seeds."""
    mean = prof.groupby("hour", sort=True)["mean_occupancy"].mean()
    hours = mean.index.to_numpy(float)
    step = float(hours[1] - hours[0])
    out = []
    for p in periods:
        start = float(p["start_hour"]) % 24.0
        i0 = int(abs(hours - (start - step) % 24.0).argmin())
        i1 = int(abs(hours - (start + 1.0 - step) % 24.0).argmin())  # the period's first hour, its last step
        out.append((str(p["name"]), float(abs(mean.iloc[i1] - mean.iloc[i0]))))
    return out


def _four_periods(ctx) -> Measured:
    changes = _period_changes(ctx.profiles, ctx.cfg["periods"])
    weakest = min(c for _, c in changes)
    holds = len(changes) == 4 and weakest >= SHARP_CHANGE
    return Measured(
        holds,
        shown="mean occupancy change in the first hour of each period: "
        + ", ".join(f"{n} {fmt(c, 2)}" for n, c in changes),
        note=""
        if holds
        else f"a period starts without a sharp occupancy change (< {SHARP_CHANGE:g} of the households)",
    )


def _smaller_lambda_some_steps(ctx) -> Measured:
    p = ctx.profiles[ctx.profiles["seed"] == int(ctx.cfg["reference_seed"])]
    rel = 1.0 - p["lambda_blowfish"].to_numpy(float) / p["lambda_naive"].to_numpy(float)
    n = int((rel >= SMALLER_LAMBDA).sum())
    all_seeds = ctx.profiles
    rel_all = 1.0 - all_seeds["lambda_blowfish"].to_numpy(float) / all_seeds["lambda_naive"].to_numpy(float)
    return Measured(
        n > 0,
        shown=f"{n} of {len(p)} steps of the drawn day (seed {int(ctx.cfg['reference_seed'])}) with lambda_B at least "
        f"{100 * SMALLER_LAMBDA:g} % below lambda_N (largest gap {fmt(100 * float(rel.max()), 3)} %; over all seeds "
        f"{int((rel_all >= SMALLER_LAMBDA).sum())} of {len(all_seeds)} steps)",
        note=""
        if n
        else "in the default setting no household's occupancy state has zero prior probability, so Algorithm 1 "
        "examines every household and lambda_B = lambda_N (up to alpha (u_max - max_h u_h)); the gain needs "
        "zero-prior states (blowfish_gain_needs_zero_transitions, table_zero_sweep)",
    )


#: The paper's claims, as data; the claims job measures each on the run's tables (dpgrid.core.claims.evaluate_claims).
CLAIMS: tuple[ClaimSpec, ...] = (
    *(
        ClaimSpec(
            f"blowfish_rmsre_{m}",
            "table_rmsre",
            f"RMSRE (printed formula) of the {m} mechanism, Sec. IV-B",
            _rmsre(m),
            paper_value=PAPER_RMSRE[m],
            rel_tol=0.25,
        )
        for m in MECHANISMS
    ),
    ClaimSpec(
        "blowfish_rmsre_magnitude",
        "table_rmsre",
        "Both RMSREs are of order 1e-3 and low against the rate range: the RMS relative error per step below "
        f"{LOW_SHARE_OF_RANGE:g} of the day's relative rate range (max - min) / mean",
        _rmsre_magnitude,
        paper_value="1e-3 (both)",
        quote='Sec. IV-B: "a RMSRE of 1.089e-3 for the Blowfish mechanism and 1.149e-3 for the naive mechanism" ... '
        '"Both errors are considered low compared to the observed rate range."',
    ),
    ClaimSpec(
        "blowfish_ratio",
        "table_rmsre",
        "RMSRE naive / RMSRE Blowfish (paper: 5.5 % more for naive)",
        _ratio,
        paper_value=PAPER_RATIO,
        abs_tol=0.01,
    ),
    ClaimSpec(
        "blowfish_leq_naive",
        "table_rmsre",
        "Blowfish noise and error are at most the naive mechanism's (Sec. IV-B, V)",
        _leq_naive,
        quote='Sec. IV-B: "in Algorithm 1 only a subset of houses with non-zero prior are examined" (the maximum over '
        "a subset is at most the naive maximum)",
    ),
    ClaimSpec(
        "blowfish_theorem2_total_eps",
        "table_rmsre",
        "Theorem 2: total budget eps T over the day (eps = 0.5, T = 96)",
        _theorem2_total_eps,
        paper_value=0.5 * 96,
        rel_tol=1e-12,
        digits=6,
    ),
    ClaimSpec(
        "blowfish_gain_needs_zero_transitions",
        "table_zero_sweep",
        "Beyond the paper, explains blowfish_ratio: Blowfish's gain over the naive mechanism comes from leaving out "
        "occupancy states of zero prior probability (Sec. III-B, constraint Q^t; Alg. 1 lines 5-8): without households "
        "whose state is certain, no gain (< 1 %)",
        _zero_dependence,
        paper_value="not stated (the paper prints a 5.5 % gain, not what it needs)",
    ),
    privacy_audit_spec(PAPER, PRIVACY_STATEMENT),
    ClaimSpec(
        "blowfish_adversary_gain",
        "table_adversary",
        "Sec. II-A/II-C: an adversary filtering the exact published rates (eqs. 2-3) gains occupancy knowledge over the "
        f"prior (information gain > 0 at {ADVERSARY_Z:g} standard errors over seeds)",
        _adversary,
        paper_value="stated qualitatively (no number)",
        quote='Sec. II-A: "Consequently, she can exploit the aggregated data to make inferences about the individual '
        'household\u2019s occupancy [1]."',
    ),
    ClaimSpec(
        "blowfish-fig2-four-periods",
        "fig2",
        "Fig. 2(a): the four periods of the day are recognized by sharp occupancy changes: the mean occupancy changes "
        f"by >= {SHARP_CHANGE:g} within the first hour of every period (mean over seeds)",
        _four_periods,
        quote='Sec. IV-A: "The four periods of the day can be recognized clearly by the sharp occupancy changes."',
    ),
    ClaimSpec(
        "blowfish-fig2-smaller-noise-some-steps",
        "fig2",
        "Fig. 2(c): Blowfish uses a smaller noise parameter than the naive mechanism in some time steps "
        f"(lambda_B <= (1 - {SMALLER_LAMBDA:g}) lambda_N in at least one step of the drawn day)",
        _smaller_lambda_some_steps,
        quote='Sec. IV-B: "From Fig. 2(c), it can be seen that the Blowfish mechanism uses a smaller noise parameter '
        'than the naive mechanism in some time steps."',
    ),
)


def claims_job(job) -> None:
    """results/blowfish/claims.csv: every spec of :data:`CLAIMS` and the privacy audit's row."""
    ctx = claims_context(job)
    write_claims(evaluate_claims(PAPER, CLAIMS, ctx), job.output[0])
