"""One simulated day of real-time pricing with Blowfish-private and naive Laplace rates.

GhoddousiBoroujeni, Fay, Dimitrakakis, Kamgarpour, *Privacy of Real-Time Pricing in Smart Grid*,
Sec. IV: a population of household occupancy chains (:mod:`dpgrid.models.occupancy`), its
consumption, the optimal rates r^t = alpha Z^t + beta (eq. 1) and their releases by Algorithm 1
(Blowfish) and the naive Laplace mechanism (:mod:`dpgrid.mechanisms.blowfish_pricing`); the day's
utility summary (RMSRE, Sec. IV-B) and the adversary of Sec. II-C on the released rates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dpgrid.core.replicates import noise_generator
from dpgrid.core.seeds import job_rng
from dpgrid.mechanisms import blowfish_pricing as bp
from dpgrid.mechanisms.laplace import standard_laplace
from dpgrid.models import occupancy as occ
from dpgrid.privacy import uniform_laplace as ul

MECHANISMS = ("blowfish", "naive")
#: Populations up to this size get the exact joint adversary filter (2^N states), larger the mean-field one.
JOINT_FILTER_MAX_HOUSEHOLDS = 12


@dataclass(frozen=True)
class Settings:
    """The scenario of Sec. IV (built from the ``blowfish`` config section by the experiment)."""

    households: int
    steps: int
    epsilon: float
    alpha: float
    beta: float
    periods: tuple[occ.DailyPeriod, ...]
    basis: str
    perturbation_sd: float
    clipping: occ.ClippingRule
    initial_mode: str
    initial_p: float
    u_max_unoccupied: float
    u_max_occupied: float
    bound_coupling: str
    noise_coupling: str

    @property
    def u_max(self) -> float:
        return max(self.u_max_unoccupied, self.u_max_occupied)


@dataclass
class Day:
    """One simulated day: population, paths, optimal and released rates of both mechanisms."""

    population: occ.HouseholdPopulation
    occupancy: np.ndarray  # (T, N)
    consumption: np.ndarray  # (T, N)
    rates: np.ndarray  # (T,) optimal r^t
    support: np.ndarray  # (T, N, 2) prior support
    kappa: np.ndarray  # (T, N) Blowfish protected households
    lam: dict[str, np.ndarray]
    released: dict[str, np.ndarray]


def draw_day_population(
    s: Settings, rng: np.random.Generator, households: int | None = None
) -> occ.HouseholdPopulation:
    return occ.draw_population(
        s.periods,
        households or s.households,
        s.steps,
        basis=s.basis,
        perturbation_sd=s.perturbation_sd,
        clipping=s.clipping,
        initial_mode=s.initial_mode,
        initial_occupied_probability=s.initial_p,
        u_max_unoccupied=s.u_max_unoccupied,
        u_max_occupied=s.u_max_occupied,
        bound_coupling=s.bound_coupling,
        rng=rng,
    )


def noise_parameters(
    s: Settings, pop: occ.HouseholdPopulation, support: np.ndarray
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """lambda^t of both mechanisms (Algorithm 1 lines 2-10; the naive alpha u_max) and Algorithm 1's kappa."""
    lam_b, kappa = bp.blowfish_noise_parameter(support, pop.sensitivity, s.alpha)
    return {"blowfish": lam_b, "naive": bp.naive_noise_parameter(s.steps, s.alpha, s.u_max)}, kappa


def release_sampler(s: Settings, pop: occ.HouseholdPopulation, mechanism: str):
    """The day's release of ``mechanism`` as a sampler of consumption (T, N): ``(consumption, rng, n)`` ->
    ``n`` released rate vectors (n, T), by the code :func:`simulate_day` runs (eq. (1), lambda, lines 11-14)."""
    lam = noise_parameters(s, pop, occ.prior_support(pop))[0][mechanism]

    def sample(consumption: np.ndarray, rng: np.random.Generator, n: int) -> np.ndarray:
        rates = bp.optimal_rates(consumption, s.alpha, s.beta)
        return bp.release_rates(np.broadcast_to(rates, (n, rates.size)), lam, s.epsilon, rng)

    return sample


def simulate_day(
    s: Settings, rng: np.random.Generator, households: int | None = None, noise_rng: np.random.Generator | None = None
) -> Day:
    """Population, occupancy, consumption, optimal rates, Algorithm 1 and the naive baseline. The day's data are
    drawn from ``rng``, the mechanisms' noise from ``noise_rng`` (default: ``rng``, after the data)."""
    noise_rng = rng if noise_rng is None else noise_rng
    pop = draw_day_population(s, rng, households)
    occupancy = occ.simulate_occupancy(pop, rng)
    consumption = occ.simulate_consumption(pop, occupancy, rng)
    rates = bp.optimal_rates(consumption, s.alpha, s.beta)
    support = occ.prior_support(pop)
    lam, kappa = noise_parameters(s, pop, support)
    lam_b = lam["blowfish"]
    w_b = standard_laplace(noise_rng, s.steps)
    w_n = w_b if s.noise_coupling == "common" else standard_laplace(noise_rng, s.steps)
    released = {
        "blowfish": bp.release_rates(rates, lam_b, s.epsilon, noise_rng, w_b),
        "naive": bp.release_rates(rates, lam["naive"], s.epsilon, noise_rng, w_n),
    }
    return Day(pop, occupancy, consumption, rates, support, kappa, lam, released)


def seeded_day(s: Settings, data_root: int, noise_root: int, keys: tuple, households: int | None = None) -> Day:
    """:func:`simulate_day` on the job stream named by ``keys``: the data from ``job_rng(data_root, *keys)``, the
    noise from the same generator when ``noise_root == data_root`` (a run's own day), else from ``job_rng(noise_root,
    *keys)`` (another noise replicate of the same data; dpgrid.core.replicates)."""
    rng = job_rng(data_root, *keys)
    return simulate_day(s, rng, households, noise_generator(rng, data_root, noise_root, *keys))


def day_summary(day: Day, s: Settings) -> dict[str, float]:
    """Utility of both mechanisms on one day: printed RMSRE, plain RMS relative error, expected RMSRE."""
    out: dict[str, float] = {}
    for m in MECHANISMS:
        out[f"rmsre_printed_{m}"] = bp.rmsre_printed(day.released[m], day.rates)
        out[f"rms_relative_{m}"] = bp.rms_relative_error(day.released[m], day.rates)
        out[f"expected_rmsre_printed_{m}"] = bp.expected_rmsre_printed(day.lam[m], s.epsilon, day.rates)
    out["ratio_printed"] = out["rmsre_printed_naive"] / out["rmsre_printed_blowfish"]
    out["ratio_expected"] = out["expected_rmsre_printed_naive"] / out["expected_rmsre_printed_blowfish"]
    out["lambda_blowfish_leq_naive"] = float(np.all(day.lam["blowfish"] <= day.lam["naive"]))
    out["steps_lambda_zero"] = int(np.sum(day.lam["blowfish"] == 0))
    out["min_kappa"] = int(day.kappa.sum(axis=1).min())
    out["mean_kappa_fraction"] = float(day.kappa.mean())
    out["mean_lambda_ratio"] = float(np.mean(day.lam["blowfish"] / day.lam["naive"]))
    t = day.population.transitions
    out["frac_households_zero_transition"] = float(np.mean((t == 0).any(axis=(1, 2, 3))))
    out["eps_per_step"] = s.epsilon
    out["eps_total_theorem2"] = ul.sequential_epsilon(s.epsilon, s.steps)
    return out


def day_profile(day: Day, s: Settings, seed: int) -> pd.DataFrame:
    """Per-step profile of one day (Fig. 2 and the lambda figure)."""
    return pd.DataFrame(
        {
            "seed": seed,
            "step": np.arange(s.steps),
            "hour": 24.0 * np.arange(s.steps) / s.steps,
            "mean_occupancy": day.occupancy.mean(axis=1),
            "mean_consumption": day.consumption.mean(axis=1),
            "prior_mean_occupancy": occ.prior_occupied_probability(day.population).mean(axis=1),
            "rate_optimal": day.rates,
            "rate_blowfish": day.released["blowfish"],
            "rate_naive": day.released["naive"],
            "lambda_blowfish": day.lam["blowfish"],
            "lambda_naive": day.lam["naive"],
            "kappa_size": day.kappa.sum(axis=1),
        }
    )


def adversary_rows(day: Day, s: Settings, seed: int, population: str) -> list[dict[str, Any]]:
    """The adversary of Sec. II-C on the released rates: how much better than the prior it guesses occupancy."""
    prior = occ.prior_occupied_probability(day.population)
    base = occ.guess_metrics(day.occupancy, prior)
    releases = {
        "no_noise": (day.rates, np.zeros(s.steps)),
        "naive": (day.released["naive"], day.lam["naive"] / s.epsilon),
        "blowfish": (day.released["blowfish"], day.lam["blowfish"] / s.epsilon),
    }
    rows = []
    joint = day.population.n_households <= JOINT_FILTER_MAX_HOUSEHOLDS
    filt = occ.adversary_joint_posterior if joint else occ.adversary_occupancy_posterior
    for name, (released, b) in releases.items():
        post = filt(day.population, released, b, s.alpha, s.beta)
        m = occ.guess_metrics(day.occupancy, post)
        rows.append(
            {
                "seed": seed,
                "population": population,
                "households": day.population.n_households,
                "filter": "joint" if joint else "mean_field",
                "release": name,
                "accuracy_prior": base["accuracy"],
                "accuracy_posterior": m["accuracy"],
                "accuracy_gain": m["accuracy"] - base["accuracy"],
                "logloss_prior_bits": base["logloss_bits"],
                "logloss_posterior_bits": m["logloss_bits"],
                "information_gain_bits": base["logloss_bits"] - m["logloss_bits"],
            }
        )
    return rows


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
