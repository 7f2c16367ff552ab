"""blowfish: GhoddousiBoroujeni, Fay, Dimitrakakis, Kamgarpour, *Privacy of Real-Time Pricing in
Smart Grid* (Algorithm 1, Theorems 1-2, Sec. IV, Fig. 2). Rule bodies of workflow/papers/blowfish/blowfish.smk
that compute.

Each job reads ``job.params.cfg`` (the slice of the ``blowfish`` config section its rule passes) and
``job.params.seed``; the mathematics is in :mod:`dpgrid.papers.blowfish.day`,
:mod:`dpgrid.models.occupancy`, :mod:`dpgrid.mechanisms.blowfish_pricing` and
:mod:`dpgrid.privacy.uniform_laplace`. Random streams: ``job_rng(seed, "blowfish", <job>, <seed index>)``.
Sweeps are one job per point (``run_seed_job`` per seed index, ``zero_sweep_threshold_job`` per clipping
threshold), merged by ``runs_job`` and ``zero_sweep_job`` into the tables the later rules read.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from dpgrid.core.io import read_table, write_table
from dpgrid.core.seeds import job_rng
from dpgrid.core.sweeps import concat_sweep_points
from dpgrid.mechanisms import blowfish_pricing as bp
from dpgrid.models import occupancy as occ
from dpgrid.papers.blowfish.day import MECHANISMS, Settings, adversary_rows, day_profile, day_summary, simulate_day
from dpgrid.papers.blowfish.paper import PAPER
from dpgrid.privacy import uniform_laplace as ul
from dpgrid.privacy.audit import audit_density_ratio

LOG = logging.getLogger(__name__)


def _get(section: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in section:
        raise KeyError(f"config: missing field {where}.{key}")
    return section[key]


def settings_from_config(c: Mapping[str, Any]) -> Settings:
    """The scenario from the ``blowfish`` config section ``c`` (the schema validates types; this names bad values)."""
    w = "blowfish"
    periods = []
    for i, p in enumerate(_get(c, "periods", w)):
        try:
            periods.append(
                occ.DailyPeriod(
                    str(p["name"]),
                    float(p["start_hour"]),
                    float(p["end_hour"]),
                    float(p["p_leave"]),
                    float(p["p_arrive"]),
                )
            )
        except (KeyError, ValueError) as exc:
            raise ValueError(f"config: field blowfish.periods[{i}] = {p!r}: {exc}") from None
    try:
        occ.step_periods(periods, int(_get(c, "steps_per_day", w)))
    except ValueError as exc:
        raise ValueError(f"config: field blowfish.periods: {exc}") from None
    clip = _get(c, "clipping", w)
    init = _get(c, "initial_distribution", w)
    cons = _get(c, "consumption", w)
    pricing = _get(c, "pricing", w)
    try:
        clipping = occ.ClippingRule(str(clip["mode"]), float(clip["threshold"]))
    except ValueError as exc:
        raise ValueError(f"config: field blowfish.clipping = {clip!r}: {exc}") from None
    if c["noise_coupling"] not in ("independent", "common"):
        raise ValueError(
            f"config: field blowfish.noise_coupling = {c['noise_coupling']!r}: expected independent or common"
        )
    return Settings(
        households=int(_get(c, "households", w)),
        steps=int(c["steps_per_day"]),
        epsilon=float(_get(c, "epsilon", w)),
        alpha=float(pricing["alpha"]),
        beta=float(pricing["beta"]),
        periods=tuple(periods),
        basis=str(_get(c, "probability_basis", w)),
        perturbation_sd=float(_get(c, "perturbation_sd", w)),
        clipping=clipping,
        initial_mode=str(init["mode"]),
        initial_p=float(init["occupied_probability"]),
        u_max_unoccupied=float(cons["u_max_unoccupied"]),
        u_max_occupied=float(cons["u_max_occupied"]),
        bound_coupling=str(cons["bound_coupling"]),
        noise_coupling=str(_get(c, "noise_coupling", w)),
    )


def run_seed_job(job) -> None:
    """One seed index (wildcard ``seed``) of the default setting: utility summary, per-step profile, adversary rows.

    Streams ``job_rng(seed, "blowfish", "run", k)`` and ``("adversary_small", k)``: the seed index alone
    decides the draws, so the merged tables do not depend on which job runs first.
    """
    c = job.params.cfg
    s = settings_from_config(c)
    k = int(job.wildcards.seed)
    root = job.params.seed
    day = simulate_day(s, job_rng(root, PAPER, "run", k))
    run = {"seed": k, **day_summary(day, s)}
    adversary = adversary_rows(day, s, k, "main")
    small = simulate_day(s, job_rng(root, PAPER, "adversary_small", k), int(c["adversary"]["small_households"]))
    adversary += adversary_rows(small, s, k, "small")
    LOG.info("seed %d: RMSRE blowfish %.4g naive %.4g", k, run["rmsre_printed_blowfish"], run["rmsre_printed_naive"])
    write_table(pd.DataFrame([run]), job.output.runs)
    write_table(day_profile(day, s, k), job.output.profiles)
    write_table(pd.DataFrame(adversary), job.output.adversary)


def runs_job(job) -> None:
    """Merge the per-seed tables of rule blowfish_run_seed, in seed order: runs, profiles, adversary rows."""
    seeds = list(range(int(job.params.cfg["seeds"])))
    for key in ("runs", "profiles", "adversary"):
        table = concat_sweep_points(list(getattr(job.input, key)), "seed", seeds, "blowfish.seeds")
        write_table(table, getattr(job.output, key))


def _spread(values: pd.Series) -> dict[str, float]:
    v = values.astype(float)
    return {"mean": v.mean(), "std": v.std(ddof=1) if len(v) > 1 else 0.0, "min": v.min(), "max": v.max(), "n": len(v)}


def tables_job(job) -> None:
    """RMSRE table (printed formula, plain RMS, expected) and adversary table, spread over seeds."""
    runs = read_table(job.input.runs)
    rows = []
    for metric in ("rmsre_printed", "rms_relative", "expected_rmsre_printed"):
        for m in MECHANISMS:
            rows.append({"metric": metric, "mechanism": m, **_spread(runs[f"{metric}_{m}"])})
    for metric in ("ratio_printed", "ratio_expected"):
        rows.append({"metric": metric, "mechanism": "naive/blowfish", **_spread(runs[metric])})
    rows.append(
        {
            "metric": "fraction_seeds_blowfish_leq_naive_sampled",
            "mechanism": "blowfish",
            **_spread((runs["rmsre_printed_blowfish"] <= runs["rmsre_printed_naive"]).astype(float)),
        }
    )
    for metric in ("eps_per_step", "eps_total_theorem2", "steps_lambda_zero", "min_kappa", "mean_lambda_ratio"):
        rows.append({"metric": metric, "mechanism": "blowfish", **_spread(runs[metric])})
    write_table(pd.DataFrame(rows), job.output.rmsre)
    adv = read_table(job.input.adversary)
    out = []
    for (pop, n, filt, release), g in adv.groupby(["population", "households", "filter", "release"], sort=False):
        row = {"population": pop, "households": n, "filter": filt, "release": release}
        for col in ("accuracy_prior", "accuracy_posterior", "accuracy_gain", "information_gain_bits"):
            sp = _spread(g[col])
            row[f"{col}_mean"], row[f"{col}_std"] = sp["mean"], sp["std"]
        row["seeds"] = len(g)
        out.append(row)
    write_table(pd.DataFrame(out), job.output.adversary)


def _zero_sweep_initials(sw: Mapping[str, Any]) -> list[str]:
    labels = [_initial_label(init) for init in sw["initial_distributions"]]
    if len(set(labels)) != len(labels):
        raise ValueError(f"config: field blowfish.zero_sweep.initial_distributions has duplicate settings {labels}")
    return labels


#: day-summary columns of the zero-probability sweep averaged over the sweep seeds in the per-threshold table
ZERO_SWEEP_MEANS = (
    "frac_households_zero_transition",
    "steps_lambda_zero",
    "min_kappa",
    "mean_kappa_fraction",
    "mean_lambda_ratio",
    "ratio_expected",
    "ratio_printed",
)
#: day-summary columns of the sweep's per-run table
ZERO_SWEEP_COLUMNS = (
    *ZERO_SWEEP_MEANS,
    "expected_rmsre_printed_blowfish",
    "expected_rmsre_printed_naive",
    "rmsre_printed_blowfish",
    "rmsre_printed_naive",
)


def zero_sweep_threshold_job(job) -> None:
    """One clipping threshold (wildcard ``threshold``) of the zero-probability sweep: every initial law x sweep seed,
    per-day rows and their (initial law, threshold) means.

    Every (threshold, initial law) point of one seed index k uses the same random stream
    ``job_rng(seed, "blowfish", "zero_sweep", k)`` (paired comparison): only the zero pattern changes
    along the sweep, and no job's draws depend on another job.
    """
    base = settings_from_config(job.params.cfg)
    sw = job.params.cfg["zero_sweep"]
    _zero_sweep_initials(sw)
    th = float(job.params.threshold)
    try:
        clip = occ.ClippingRule("threshold", th)
    except ValueError as exc:
        raise ValueError(f"config: field blowfish.zero_sweep.thresholds: {exc}") from None
    rows = []
    for init in sw["initial_distributions"]:
        s = replace(base, clipping=clip, initial_mode=str(init["mode"]), initial_p=float(init["occupied_probability"]))
        for k in range(int(sw["seeds"])):
            summ = day_summary(simulate_day(s, job_rng(job.params.seed, PAPER, "zero_sweep", k)), s)
            rows.append(
                {
                    "initial": _initial_label(init),
                    "threshold": th,
                    "seed": k,
                    **{key: summ[key] for key in ZERO_SWEEP_COLUMNS},
                }
            )
    runs = pd.DataFrame(rows)
    write_table(runs, job.output.runs)
    agg = []
    for (init, t), g in runs.groupby(["initial", "threshold"], sort=False):
        row = {"initial": init, "threshold": t, "seeds": len(g)}
        for col in ZERO_SWEEP_MEANS:
            row[f"{col}_mean"] = g[col].mean()
        row["ratio_printed_std"] = g["ratio_printed"].std(ddof=1) if len(g) > 1 else 0.0
        agg.append(row)
    write_table(pd.DataFrame(agg), job.output.table)


def zero_sweep_job(job) -> None:
    """Merge the per-threshold tables of rule blowfish_zero_sweep_threshold in (initial law, threshold, seed)
    order, and draw the example days of the lambda figure (sweep seed 0)."""
    base = settings_from_config(job.params.cfg)
    sw = job.params.cfg["zero_sweep"]
    initials = _zero_sweep_initials(sw)
    thresholds = [float(th) for th in sw["thresholds"]]
    for key in ("runs", "table"):
        merged = concat_sweep_points(
            list(getattr(job.input, key)), "threshold", thresholds, "blowfish.zero_sweep.thresholds"
        )
        # per threshold file: initial law, then seed; the merged tables run initial law, threshold, seed
        order = merged["initial"].map({lab: i for i, lab in enumerate(initials)})
        if order.isna().any():
            raise ValueError(
                f"{list(getattr(job.input, key))}: field 'initial' has values "
                f"{sorted(set(merged['initial']) - set(initials))} not in config field "
                "blowfish.zero_sweep.initial_distributions"
            )
        write_table(merged.iloc[np.argsort(order.to_numpy(), kind="stable")], getattr(job.output, key))
    profiles = []
    for ex in sw["examples"]:
        s_ex = replace(
            base,
            clipping=occ.ClippingRule("threshold", float(ex["threshold"])),
            initial_mode=str(ex["initial_distribution"]["mode"]),
            initial_p=float(ex["initial_distribution"]["occupied_probability"]),
        )
        day = simulate_day(s_ex, job_rng(job.params.seed, PAPER, "zero_sweep", 0))
        prof = day_profile(day, s_ex, 0)
        prof.insert(0, "setting", f"{_initial_label(ex['initial_distribution'])}, threshold {float(ex['threshold']):g}")
        profiles.append(prof)
    write_table(pd.concat(profiles, ignore_index=True), job.output.example)


def _initial_label(init: Mapping[str, Any]) -> str:
    if init["mode"] == "fixed":
        return f"fixed p={float(init['occupied_probability']):g}"
    return "cyclostationary"


def _audit_pair_row(s, a: Mapping[str, Any], day, t: int, mech: str, lam_t: float, h: int, pair: str, rng) -> dict:
    """One audited pair of household ``h`` at step ``t``: ``m`` releases of each neighbouring state (the model's
    uniform consumptions or the worst case of Theorem 1's proof), conditional on the other households' realised
    consumption, and their density-ratio audit beside the exact privacy-loss sup."""
    m = int(a["samples"])
    sens = day.population.sensitivity
    u0, u1 = day.population.bounds[h]
    z_rest = day.consumption[t].sum() - day.consumption[t, h]
    b = lam_t / s.epsilon
    if pair == "model":
        x1, x0 = rng.random(m) * u1, rng.random(m) * u0
        exact = ul.sup_household_privacy_loss(s.alpha * u1, s.alpha * u0, b)
    else:
        x1, x0 = np.full(m, sens[h]), np.zeros(m)
        exact = s.alpha * sens[h] / b
    r1 = bp.release_rates(s.alpha * (x1 + z_rest) + s.beta, lam_t, s.epsilon, rng)
    r0 = bp.release_rates(s.alpha * (x0 + z_rest) + s.beta, lam_t, s.epsilon, rng)
    res = audit_density_ratio(
        r1, r0, s.epsilon, bins=int(a["bins"]), min_count=int(a["min_count"]), confidence=float(a["confidence"])
    )
    return {
        "mechanism": mech,
        "step": t,
        "pair": pair,
        "household": h,
        "lambda": lam_t,
        "u_unoccupied": u0,
        "u_occupied": u1,
        "epsilon": s.epsilon,
        "exact_loss_sup": exact,
        "max_log_ratio": res.max_log_ratio,
        "max_log_ratio_lower": res.max_log_ratio_lower,
        "hockey_stick": res.hockey_stick,
        "hockey_stick_lower": res.hockey_stick_lower,
        "within_eps": bool(res.max_log_ratio_lower <= s.epsilon and not res.violation),
        "bins_used": res.n_bins_used,
        "note": "",
    }


def _audit_step_rows(s, a: Mapping[str, Any], day, t: int, rng) -> list[dict]:
    """The audit rows of step ``t``: per mechanism (blowfish, naive, the scaled control) the protected household
    with the largest bound, both pairs; an exact release (empty kappa or lambda 0) is one ``none`` row."""
    sens = day.population.sensitivity
    lam_ctrl = day.lam["blowfish"][t] * float(a["control_scale_factor"])
    cases = {
        "blowfish": (day.lam["blowfish"][t], day.kappa[t]),
        "naive": (day.lam["naive"][t], np.ones(s.households, dtype=bool)),
        "control": (lam_ctrl, day.kappa[t]),
    }
    rows = []
    for mech, (lam_t, protected) in cases.items():
        if not protected.any() or lam_t == 0:
            rows.append(
                {
                    "mechanism": mech,
                    "step": t,
                    "pair": "none",
                    "household": -1,
                    "lambda": lam_t,
                    "note": "no discriminative pair with non-zero prior (kappa empty): exact release",
                }
            )
            continue
        h = int(np.flatnonzero(protected)[np.argmax(sens[protected])])
        rows += [_audit_pair_row(s, a, day, t, mech, lam_t, h, pair, rng) for pair in ("model", "worst_case")]
    return rows


def audit_job(job) -> None:
    """Empirical density-ratio audit of the released rate for neighbouring occupancy states of one household.

    For each audited step and mechanism, the household with the largest bound among those the
    mechanism protects is audited, conditional on the other households' realised consumption (the
    worst case over Z_-h, which implies the marginal statement of eq. (5)). Two pairs: the model's
    (X_h ~ U(0, u^(1)) vs U(0, u^(0))) and the worst case the proof of Theorem 1 allows
    (X_h = u_h vs X_h = 0). A control with lambda scaled by ``control_scale_factor`` must be flagged.
    """
    c = job.params.cfg
    s = settings_from_config(c)
    a = c["audit"]
    day = simulate_day(s, job_rng(job.params.seed, PAPER, "run", int(c["reference_seed"])))
    rng = job_rng(job.params.seed, PAPER, "audit", int(c["reference_seed"]))
    rows = []
    for t in a["steps"]:
        if not 0 <= int(t) < s.steps:
            raise ValueError(f"config: field blowfish.audit.steps contains {t!r}, outside 0..{s.steps - 1}")
        rows += _audit_step_rows(s, a, day, int(t), rng)
    write_table(pd.DataFrame(rows), job.output.table)
