"""Household occupancy Markov chains and their consumption model.

GhoddousiBoroujeni, Fay, Dimitrakakis, Kamgarpour, *Privacy of Real-Time Pricing in Smart Grid*
(Sec. II-B, II-C, IV-A). Every household h follows its own two-state chain S_h^t in {0, 1}
(1 = occupied and active), with a transition matrix that is constant within each of four daily
periods (morning, noon, evening, night). The N chains are independent, so the joint chain on
{0, 1}^N of the paper (transition matrix A^t of size 2^N x 2^N) is the product of the household
chains; everything here is vectorised over households and never enumerates the 2^N joint states:

- the joint prior P^{t|t-1} of eq. (2) factorises into household marginals;
- a joint state has non-zero prior iff every household's state has non-zero marginal prior, so the
  support needed by Algorithm 1 (lines 4-5) is propagated per household (:func:`prior_support`);
- the adversary's forward filter of eqs. (2)-(3) is run per household with a mean-field Gaussian
  approximation of the other households' total consumption (:func:`adversary_occupancy_posterior`).

Consumption (Sec. IV-A): X_h^t ~ U(0, u_h^{(S)}) with u_h^{(1)} ~ U(0, u_max_occupied) and
u_h^{(0)} ~ U(0, u_max_unoccupied), drawn once per household.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "DailyPeriod",
    "ClippingRule",
    "HouseholdPopulation",
    "step_periods",
    "per_step_probability",
    "base_transition_matrices",
    "perturb_transition_matrices",
    "cyclostationary_occupied_probability",
    "draw_population",
    "simulate_occupancy",
    "simulate_consumption",
    "prior_support",
    "prior_occupied_probability",
    "predict_occupied_probability",
    "bayes_update_occupied_probability",
    "forward_filter_two_state",
    "adversary_occupancy_posterior",
    "guess_metrics",
]


@dataclass(frozen=True)
class DailyPeriod:
    """A period of the day with constant transition probabilities (Sec. IV-A).

    ``p_leave`` is the probability of the transition occupied -> unoccupied (1 -> 0) and
    ``p_arrive`` of unoccupied -> occupied (0 -> 1); at night these are "go to sleep" and
    "get up". The period covers hours [start_hour, end_hour), wrapping past midnight when
    ``start_hour > end_hour``.
    """

    name: str
    start_hour: float
    end_hour: float
    p_leave: float
    p_arrive: float

    def __post_init__(self) -> None:
        for field in ("p_leave", "p_arrive"):
            v = getattr(self, field)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"period {self.name!r}: {field} = {v!r} is not a probability")
        for field in ("start_hour", "end_hour"):
            v = getattr(self, field)
            if not 0.0 <= v <= 24.0:
                raise ValueError(f"period {self.name!r}: {field} = {v!r} not in [0, 24]")

    def contains(self, hour: np.ndarray) -> np.ndarray:
        if self.start_hour <= self.end_hour:
            return (hour >= self.start_hour) & (hour < self.end_hour)
        return (hour >= self.start_hour) | (hour < self.end_hour)


@dataclass(frozen=True)
class ClippingRule:
    """How perturbed transition probabilities are mapped back into [0, 1] (Sec. IV-A, unstated).

    ``mode="threshold"``: a perturbed entry <= ``threshold`` becomes exactly 0 and one
    >= 1 - ``threshold`` exactly 1 (``threshold=0`` is plain clipping to [0, 1]); exact-zero
    transitions therefore exist, and more of them the larger the threshold.
    ``mode="floor"``: entries are clipped into [threshold, 1 - threshold]; with ``threshold > 0``
    no transition has probability exactly 0 (every occupancy state stays possible).
    Rows are renormalised to sum to 1 afterwards.
    """

    mode: str = "threshold"
    threshold: float = 0.0

    def __post_init__(self) -> None:
        if self.mode not in ("threshold", "floor"):
            raise ValueError(f"clipping.mode = {self.mode!r}: expected 'threshold' or 'floor'")
        if not 0.0 <= self.threshold < 0.5:
            raise ValueError(f"clipping.threshold = {self.threshold!r}: expected 0 <= threshold < 0.5")

    def apply(self, p: np.ndarray) -> np.ndarray:
        p = np.asarray(p, dtype=float)
        if self.mode == "floor":
            return np.clip(p, self.threshold, 1.0 - self.threshold)
        out = np.clip(p, 0.0, 1.0)
        out = np.where(p <= self.threshold, 0.0, out)
        return np.where(p >= 1.0 - self.threshold, 1.0, out)


@dataclass(frozen=True)
class HouseholdPopulation:
    """N independent household chains with their consumption bounds.

    transitions:  (N, P, 2, 2) row-stochastic matrices, [h, k, i, j] = Pr[S^{t+1}=j | S^t=i] in period k
    step_period:  (T,) period index k of each step; the transition *into* step t uses period step_period[t]
    initial:      (N,) Pr[S_h^0 = 1] (the prior Pi of Algorithm 1, line 3)
    bounds:       (N, 2) consumption bounds u_h^{(0)}, u_h^{(1)} (unoccupied, occupied)
    """

    transitions: np.ndarray
    step_period: np.ndarray
    initial: np.ndarray
    bounds: np.ndarray

    def __post_init__(self) -> None:
        n = self.transitions.shape[0]
        if self.transitions.ndim != 4 or self.transitions.shape[2:] != (2, 2):
            raise ValueError(f"transitions must have shape (N, P, 2, 2), got {self.transitions.shape}")
        if not np.allclose(self.transitions.sum(axis=3), 1.0, atol=1e-12) or (self.transitions < 0).any():
            raise ValueError("transition matrices must be row-stochastic")
        if self.initial.shape != (n,) or self.bounds.shape != (n, 2):
            raise ValueError(f"initial {self.initial.shape} / bounds {self.bounds.shape} do not match N = {n}")
        if self.step_period.min() < 0 or self.step_period.max() >= self.transitions.shape[1]:
            raise ValueError("step_period refers to a period that has no transition matrix")

    @property
    def n_households(self) -> int:
        return self.transitions.shape[0]

    @property
    def n_steps(self) -> int:
        return self.step_period.shape[0]

    @property
    def sensitivity(self) -> np.ndarray:
        """u_h of Algorithm 1: a bound on X_h^t under *either* occupancy state, max(u^(0), u^(1)).

        The proof of Theorem 1 uses x_h in [0, u_h] for both members of a discriminative pair
        (S_h = 0, S_h = 1), so the bound must hold in both states.
        """
        return self.bounds.max(axis=1)

    def step_transitions(self, t: int) -> np.ndarray:
        """(N, 2, 2) matrices of the transition from step t-1 into step t (A^t in eq. (2))."""
        return self.transitions[:, self.step_period[t]]


def step_periods(periods: Sequence[DailyPeriod], n_steps: int) -> np.ndarray:
    """Period index of each of ``n_steps`` equal steps of a day (step t starts at 24 t / T hours)."""
    hours = 24.0 * np.arange(n_steps) / n_steps
    out = np.full(n_steps, -1, dtype=np.int64)
    for k, period in enumerate(periods):
        mask = period.contains(hours)
        if (out[mask] >= 0).any():
            raise ValueError(f"period {period.name!r} overlaps another period")
        out[mask] = k
    if (out < 0).any():
        raise ValueError(f"the periods do not cover hour {hours[np.argmax(out < 0)]:g} of the day")
    return out


def per_step_probability(p: float | np.ndarray, n_steps: int | np.ndarray, basis: str) -> np.ndarray:
    """Per-step transition probability from the paper's probability of a transition in a period.

    ``basis="per_period"``: the paper's "x % chance to ... at some point during the period" is the
    probability of at least one transition in the period's ``n_steps`` steps, so the per-step
    probability is 1 - (1 - p)^(1 / n_steps). ``basis="per_step"``: ``p`` is used per step as is.
    """
    p = np.asarray(p, dtype=float)
    if basis == "per_step":
        return p.copy()
    if basis == "per_period":
        return 1.0 - (1.0 - p) ** (1.0 / np.asarray(n_steps, dtype=float))
    raise ValueError(f"probability_basis = {basis!r}: expected 'per_period' or 'per_step'")


def base_transition_matrices(periods: Sequence[DailyPeriod], n_steps: int, basis: str) -> np.ndarray:
    """(P, 2, 2) base matrices A^{t, theta_k} of the four periods (Sec. IV-A)."""
    sp = step_periods(periods, n_steps)
    out = np.empty((len(periods), 2, 2))
    for k, period in enumerate(periods):
        length = int((sp == k).sum())
        leave = per_step_probability(period.p_leave, length, basis)
        arrive = per_step_probability(period.p_arrive, length, basis)
        out[k] = [[1.0 - arrive, arrive], [leave, 1.0 - leave]]
    return out


def perturb_transition_matrices(
    base: np.ndarray, n_households: int, sd: float, clipping: ClippingRule, rng: np.random.Generator
) -> np.ndarray:
    """Per-household matrices: base + N(0, sd^2) on every entry, clipped by ``clipping``, rows renormalised.

    Sec. IV-A ("perturbing a base matrix with additive Gaussian noise in order to simulate
    differences between habits of individuals"). A row whose entries all clip to 0 keeps the base row.
    Returns shape (n_households, P, 2, 2).
    """
    if sd < 0:
        raise ValueError(f"perturbation_sd = {sd!r} must be >= 0")
    noisy = base[None] + sd * rng.standard_normal((n_households, *base.shape))
    clipped = clipping.apply(noisy)
    sums = clipped.sum(axis=-1, keepdims=True)
    base_rows = np.broadcast_to(base[None], clipped.shape)
    return np.where(sums > 0, clipped / np.where(sums > 0, sums, 1.0), base_rows)


def _day_product(transitions: np.ndarray, step_period: np.ndarray) -> np.ndarray:
    """(N, 2, 2) product of the transitions over one day, from step 0 to step 0 of the next day.

    Consecutive steps of one period share a matrix, so each run of equal periods is one matrix power.
    """
    n = transitions.shape[0]
    prod = np.broadcast_to(np.eye(2), (n, 2, 2)).copy()
    order = np.concatenate([step_period[1:], step_period[:1]])
    start = 0
    for end in list(np.flatnonzero(np.diff(order)) + 1) + [len(order)]:
        prod = prod @ np.linalg.matrix_power(transitions[:, order[start]], end - start)
        start = end
    return prod


def cyclostationary_occupied_probability(
    transitions: np.ndarray, step_period: np.ndarray, fallback: float
) -> np.ndarray:
    """Pr[S_h^0 = 1] under the household's periodic (day-to-day) stationary law.

    For the one-day product M = [[1-a, a], [b, 1-b]] this is a / (a + b); households whose day
    product is the identity (a + b = 0) get ``fallback``.
    """
    m = _day_product(transitions, step_period)
    a, b = m[:, 0, 1], m[:, 1, 0]
    s = a + b
    return np.where(s > 0, a / np.where(s > 0, s, 1.0), fallback)


def draw_population(
    periods: Sequence[DailyPeriod],
    n_households: int,
    n_steps: int,
    *,
    basis: str,
    perturbation_sd: float,
    clipping: ClippingRule,
    initial_mode: str,
    initial_occupied_probability: float,
    u_max_unoccupied: float,
    u_max_occupied: float,
    bound_coupling: str,
    rng: np.random.Generator,
) -> HouseholdPopulation:
    """Draw N households of Sec. IV-A: perturbed transition matrices, initial law, consumption bounds.

    ``initial_mode``: ``"fixed"`` (every household Pr[S^0 = 1] = ``initial_occupied_probability``;
    0 or 1 makes the initial prior degenerate) or ``"cyclostationary"`` (the household's periodic
    stationary law). ``bound_coupling``: ``"independent"`` draws u^(0), u^(1) independently,
    ``"common"`` uses one uniform for both (u^(0) = u^(1) * u_max_unoccupied / u_max_occupied).
    """
    if n_households < 1 or n_steps < 2:
        raise ValueError(f"need households >= 1 and steps >= 2, got {n_households}, {n_steps}")
    sp = step_periods(periods, n_steps)
    base = base_transition_matrices(periods, n_steps, basis)
    transitions = perturb_transition_matrices(base, n_households, perturbation_sd, clipping, rng)
    if initial_mode == "fixed":
        initial = np.full(n_households, float(initial_occupied_probability))
    elif initial_mode == "cyclostationary":
        initial = cyclostationary_occupied_probability(transitions, sp, float(initial_occupied_probability))
    else:
        raise ValueError(f"initial_distribution.mode = {initial_mode!r}: expected 'fixed' or 'cyclostationary'")
    if bound_coupling == "independent":
        v = rng.random((n_households, 2))
    elif bound_coupling == "common":
        v = np.repeat(rng.random((n_households, 1)), 2, axis=1)
    else:
        raise ValueError(f"consumption.bound_coupling = {bound_coupling!r}: expected 'independent' or 'common'")
    bounds = v * np.array([u_max_unoccupied, u_max_occupied])
    return HouseholdPopulation(transitions, sp, initial, bounds)


def simulate_occupancy(pop: HouseholdPopulation, rng: np.random.Generator) -> np.ndarray:
    """(T, N) int8 occupancy paths S_h^t of the household chains."""
    n, steps = pop.n_households, pop.n_steps
    s = np.empty((steps, n), dtype=np.int8)
    s[0] = rng.random(n) < pop.initial
    for t in range(1, steps):
        a = pop.step_transitions(t)
        p_occupied = np.where(s[t - 1] == 1, a[:, 1, 1], a[:, 0, 1])
        s[t] = rng.random(n) < p_occupied
    return s


def simulate_consumption(pop: HouseholdPopulation, occupancy: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(T, N) consumption X_h^t ~ U(0, u_h^{(S_h^t)}) (Sec. IV-A)."""
    u = np.take_along_axis(pop.bounds[None, :, :], occupancy[..., None].astype(np.int64), axis=2)[..., 0]
    return rng.random(occupancy.shape) * u


def prior_support(pop: HouseholdPopulation) -> np.ndarray:
    """(T, N, 2) bool: which occupancy states of each household have non-zero prior P^{t|t-1}.

    Algorithm 1, lines 3-5. The prior of step t is the posterior of step t-1 times A^t (eq. (2));
    the Laplace likelihood of a released rate is positive everywhere, so the posterior has the same
    support as the prior and the support propagates through the zero pattern of the transitions
    alone: state j is possible at t iff some possible state i at t-1 has A^t_{ij} > 0.
    """
    steps, n = pop.n_steps, pop.n_households
    support = np.zeros((steps, n, 2), dtype=bool)
    support[0, :, 0] = pop.initial < 1.0
    support[0, :, 1] = pop.initial > 0.0
    positive = pop.transitions > 0.0  # (N, P, 2, 2)
    for t in range(1, steps):
        pos = positive[:, pop.step_period[t]]
        prev = support[t - 1]
        support[t] = (prev[:, 0, None] & pos[:, 0, :]) | (prev[:, 1, None] & pos[:, 1, :])
    return support


def predict_occupied_probability(p_occupied: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Eq. (2) for one household chain: Pr[S^t = 1] = p A_11 + (1 - p) A_01 (vectorised)."""
    return p_occupied * a[..., 1, 1] + (1.0 - p_occupied) * a[..., 0, 1]


def prior_occupied_probability(pop: HouseholdPopulation) -> np.ndarray:
    """(T, N) Pr[S_h^t = 1] from the model alone (eq. (2) without any observation)."""
    q = np.empty((pop.n_steps, pop.n_households))
    q[0] = pop.initial
    for t in range(1, pop.n_steps):
        q[t] = predict_occupied_probability(q[t - 1], pop.step_transitions(t))
    return q


def bayes_update_occupied_probability(prior: np.ndarray, loglik_ratio: np.ndarray) -> np.ndarray:
    """Eq. (3) for a two-state chain in logit form: logit(post) = logit(prior) + log l_1 / l_0.

    Degenerate priors (exactly 0 or 1) stay degenerate.
    """
    from scipy.special import expit, logit

    with np.errstate(divide="ignore"):
        return expit(logit(prior) + loglik_ratio)


def forward_filter_two_state(pop: HouseholdPopulation, loglik_ratio: np.ndarray) -> np.ndarray:
    """(T, N) filtered Pr[S_h^t = 1 | y^{1..t}] for given per-step log-likelihood ratios (eqs. (2)-(3))."""
    post = np.empty_like(loglik_ratio, dtype=float)
    prior = pop.initial
    for t in range(pop.n_steps):
        if t > 0:
            prior = predict_occupied_probability(post[t - 1], pop.step_transitions(t))
        post[t] = bayes_update_occupied_probability(prior, loglik_ratio[t])
    return post


def _consumption_moments(bounds: np.ndarray, p_occupied: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of X_h given Pr[S_h = 1] = p (mixture of U(0, u0) and U(0, u1))."""
    u0, u1 = bounds[:, 0], bounds[:, 1]
    mean = p_occupied * u1 / 2 + (1 - p_occupied) * u0 / 2
    second = p_occupied * u1**2 / 3 + (1 - p_occupied) * u0**2 / 3
    return mean, second - mean**2


def adversary_occupancy_posterior(
    pop: HouseholdPopulation, released: np.ndarray, noise_scale: np.ndarray, alpha: float, beta: float
) -> np.ndarray:
    """(T, N) adversary's filtered Pr[S_h^t = 1 | r_hat^1..t] (Sec. II-C, eqs. (2)-(3), per household).

    The exact joint filter lives on 2^N states. Per household h we instead use the exact two-state
    recursion (eq. (2) prediction, eq. (3) update) with the likelihood Pr[r_hat^t | S_h^t = s]
    approximated by a Gaussian: r_hat = beta + alpha (X_h + Z_-h) + Laplace(b_t), with Z_-h the other
    households' total, moment-matched from their current predicted marginals (mean-field, central
    limit for N - 1 independent terms); X_h | s ~ U(0, u_h^{(s)}); Laplace variance 2 b_t^2.
    ``noise_scale`` b_t = lambda_t / eps (0 for the unperturbed optimal rate).
    """
    steps, n = pop.n_steps, pop.n_households
    released = np.asarray(released, dtype=float)
    noise_scale = np.asarray(noise_scale, dtype=float)
    if released.shape != (steps,) or noise_scale.shape != (steps,):
        raise ValueError(
            f"released rates and noise scales need shape ({steps},), got {released.shape}, {noise_scale.shape}"
        )
    u0, u1 = pop.bounds[:, 0], pop.bounds[:, 1]
    post = np.empty((steps, n))
    prior = pop.initial.astype(float)
    for t in range(steps):
        if t > 0:
            prior = predict_occupied_probability(post[t - 1], pop.step_transitions(t))
        mean_h, var_h = _consumption_moments(pop.bounds, prior)
        rest_mean = mean_h.sum() - mean_h
        rest_var = np.maximum(var_h.sum() - var_h, 0.0)
        noise_var = 2.0 * noise_scale[t] ** 2
        loglik = []
        for u in (u0, u1):
            mu = beta + alpha * (rest_mean + u / 2)
            var = alpha**2 * (rest_var + u**2 / 12) + noise_var + 1e-12
            loglik.append(-0.5 * np.log(var) - 0.5 * (released[t] - mu) ** 2 / var)
        post[t] = bayes_update_occupied_probability(prior, loglik[1] - loglik[0])
    return post


def guess_metrics(occupancy: np.ndarray, p_occupied: np.ndarray) -> dict[str, float]:
    """Accuracy of the MAP guess 1[p > 1/2] and mean log-loss (bits) of ``p_occupied`` for ``occupancy``."""
    s = occupancy.astype(bool)
    acc = float(np.mean((p_occupied > 0.5) == s))
    p_true = np.clip(np.where(s, p_occupied, 1.0 - p_occupied), 1e-300, 1.0)
    return {"accuracy": acc, "logloss_bits": float(np.mean(-np.log2(p_true)))}


def adversary_joint_posterior(
    pop: HouseholdPopulation,
    released: np.ndarray,
    noise_scale: np.ndarray,
    alpha: float,
    beta: float,
    max_households: int = 16,
) -> np.ndarray:
    """(T, N) marginals of the adversary's exact joint filter on 2^N states (eqs. (2)-(3)), small N only.

    The joint prior is a tensor over {0, 1}^N, propagated by applying each household's 2 x 2 matrix
    along its axis (the joint A^t is their Kronecker product). The likelihood of r_hat given the
    joint state M is Gaussian with the exact mean beta + alpha sum_h u_h^{(M_h)}/2 and variance
    alpha^2 sum_h (u_h^{(M_h)})^2/12 + 2 b_t^2 (a central-limit approximation of the uniform sum plus
    Laplace noise). Used to check the mean-field filter and for small populations.
    """
    n, steps = pop.n_households, pop.n_steps
    if n > max_households:
        raise ValueError(f"joint filter over 2^{n} states refused (max_households = {max_households})")
    states = ((np.arange(2**n)[:, None] >> np.arange(n)[::-1]) & 1).astype(np.int64)  # (2^N, N), C order
    u_state = pop.bounds[np.arange(n)[None, :], states]  # (2^N, N)
    mean_x = u_state.sum(axis=1) / 2
    var_x = (u_state**2).sum(axis=1) / 12
    p1 = pop.initial
    joint = np.ones([2] * n)
    for h in range(n):
        shape = [1] * n
        shape[h] = 2
        joint = joint * np.array([1 - p1[h], p1[h]]).reshape(shape)
    out = np.empty((steps, n))
    for t in range(steps):
        if t > 0:
            a = pop.step_transitions(t)
            for h in range(n):
                joint = np.moveaxis(np.tensordot(joint, a[h], axes=([h], [0])), -1, h)
        var = alpha**2 * var_x + 2.0 * noise_scale[t] ** 2 + 1e-12
        loglik = -0.5 * np.log(var) - 0.5 * (released[t] - beta - alpha * mean_x) ** 2 / var
        flat = joint.reshape(-1) * np.exp(loglik - loglik.max())
        flat = flat / flat.sum()
        joint = flat.reshape([2] * n)
        out[t] = flat @ states
    return out
