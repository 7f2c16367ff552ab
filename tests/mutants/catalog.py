"""Privacy-breaking mutants of the four papers' mechanisms, written against public names.

Each mutant replaces one public function, method or property (module attribute) by a broken version. It is
applied in a fresh interpreter before any dpgrid module imports the name (``sitecustomize.py`` of this folder on
PYTHONPATH, ``DPGRID_MUTANT=<name>``: every Snakemake job process gets it), so a module that moved keeps the
mutant applicable as long as the public name is importable where the catalog says. ``run_mutant.py`` applies one
to a scratch copy of the workflow and runs the privacy audits of its paper on the quick configuration.

Kinds (issue "privacy audits that a broken mechanism cannot pass"): ``noise`` (noise scaled below its
calibration), ``correlation`` (a correlation dropped), ``sensitivity`` (a sensitivity under-reported),
``neighbours`` (a neighbour relation shrunk), ``calibration`` (a calibration constant wrong).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

KINDS = ("noise", "correlation", "sensitivity", "neighbours", "calibration")


@dataclass(frozen=True)
class Mutant:
    name: str
    paper: str
    kind: str
    description: str
    module: str  # where the public name lives
    attribute: str  # "function" or "Class.member"
    make: Callable  # original -> replacement
    member: str = "function"  # function | method | property
    #: Rules whose jobs run the mutated code (forced to rerun when the mutant starts from a base run).
    rerun: tuple[str, ...] = ()
    #: A documented sub-threshold variant: why it breaks the claim by less than the detection requirement
    #: (violation.REQUIREMENT). Its ratio is computed (violation.measure) and asserted below the requirement by
    #: run_mutant.py and tests/workflow/test_mutants_catalog.py; empty: an ordinary mutant.
    sub_threshold: str = ""


def _scaled_result(factor):
    def make(orig):
        @functools.wraps(orig)
        def f(*a, **k):
            return factor * orig(*a, **k)

        return f

    return make


def _release_scaled_noise(factor):
    def make(orig):
        @functools.wraps(orig)
        def f(q, noise_cov, rng):
            return orig(q, factor**2 * np.asarray(noise_cov), rng)

        return f

    return make


def _release_diagonal(orig):
    @functools.wraps(orig)
    def f(q, noise_cov, rng):
        return orig(q, np.diag(np.diag(noise_cov)), rng)

    return f


def _sup_half_edges(orig):
    @functools.wraps(orig)
    def f(means, covs, edges, eps, **k):
        e = np.asarray(edges).reshape(-1, 2)
        return orig(means, covs, e[e[:, 0] < e[:, 1]], eps, **k)

    return f


def _sup_low_surrogate_half(orig):
    @functools.wraps(orig)
    def f(means, covs, edges, eps, **k):
        from dpgrid.privacy.gaussian_loss import EdgeTailCache

        e = np.asarray(edges).reshape(-1, 2)
        cache = k.get("cache")
        cache = EdgeTailCache(means, covs) if cache is None else cache
        order = np.argsort([cache.loss(int(i), int(j)).surrogate for i, j in e], kind="stable")
        return orig(means, covs, e[np.sort(order[: max(1, len(e) // 2)])], eps, **k)

    return f


def _loo_shifts_scaled(factor):
    def make(orig):
        @functools.wraps(orig)
        def f(*a, **k):
            loo = orig(*a, **k)
            return dataclasses.replace(loo, shifts=factor * loo.shifts)

        return f

    return make


def _design_sample_scaled(factor):
    def make(orig):
        @functools.wraps(orig)
        def f(self, rng, gamma, size=None):
            return factor * orig(self, rng, gamma, size)

        return f

    return make


def _design_sample_diagonal(orig):
    @functools.wraps(orig)
    def f(self, rng, gamma, size=None):
        diag = dataclasses.replace(self, cov_unit=np.diag(np.diag(self.cov_unit)))
        return orig(diag, rng, gamma, size)

    return f


def _label_sensitive_half(orig):
    def get(self):
        L = orig.fget(self)
        return L[1::2]  # loses its first, third, ... point: a breakage for every non-empty L

    return property(get)


def _label_noise_rho_scaled(factor):
    def make(orig):
        @functools.wraps(orig)
        def f(size, K, rho, rng):
            return orig(size, K, factor * rho, rng)

        return f

    return make


class _ScaledLaplace:
    """A Generator whose Laplace draws have ``factor`` times the requested scale (other draws unchanged)."""

    def __init__(self, rng, factor):
        self._rng, self._factor = rng, factor

    def laplace(self, loc=0.0, scale=1.0, size=None):
        return self._rng.laplace(loc, self._factor * np.asarray(scale), size)

    def __getattr__(self, name):
        return getattr(self._rng, name)


def _lloyd_noise_scaled(factor):
    def make(orig):
        @functools.wraps(orig)
        def f(X, C, eps, bound, rng, *a, **k):
            return orig(X, C, eps, bound, _ScaledLaplace(rng, factor), *a, **k)

        return f

    return make


def _sensitivity_min(orig):
    return property(lambda self: np.asarray(self.bounds).min(axis=1))


def _blowfish_lambda_drop_top(share):
    def make(orig):
        @functools.wraps(orig)
        def f(supports, sensitivity, alpha):
            sens = np.asarray(sensitivity, dtype=float).copy()
            sens[sens > (1.0 - share) * sens.max()] = 0.0  # left out of the relation: lambda falls by >= share
            return orig(supports, sens, alpha)

        return f

    return make


def _blowfish_lambda_drop_largest(orig):
    @functools.wraps(orig)
    def f(supports, sensitivity, alpha):
        sens = np.asarray(sensitivity, dtype=float).copy()
        sens[int(np.argmax(sens))] = 0.0  # the household with the largest bound left out of the relation
        return orig(supports, sens, alpha)

    return f


def _min_eigenpair_unit(orig):
    @functools.wraps(orig)
    def f(cov):
        lam, v = orig(cov)
        c = np.asarray(cov)
        d = float(np.diag(c).min())
        return (d, v) if np.allclose(np.diag(c), d) and not np.allclose(c, np.diag(np.diag(c))) else (lam, v)

    return f


def _release_root_untransposed(orig):
    """classdp release(): eta = z @ root (not root.T): covariance root^T root = diag(eigenvalues of noise_cov)."""

    @functools.wraps(orig)
    def f(q, noise_cov, rng):
        q = np.atleast_2d(np.asarray(q, dtype=float))
        w, u = np.linalg.eigh(0.5 * (noise_cov + noise_cov.T))
        root = u * np.sqrt(np.clip(w, 0.0, None))
        return q + rng.standard_normal(q.shape) @ root if q.shape[1] else q

    return f


def _everywhere(orig, new):
    """Rebind ``new`` wherever a loaded dpgrid module holds ``orig`` (a bug in a shared function's body)."""
    import sys

    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("dpgrid"):
            for k, v in list(vars(mod).items()):
                if v is orig:
                    setattr(mod, k, new)
    return new


def _exact_delta_halved(orig):
    @functools.wraps(orig)
    def f(*a, **k):
        d, err, how = orig(*a, **k)
        return 0.5 * np.asarray(d), err, how

    return _everywhere(orig, f)


def _pdp_sensitivity_4eps(orig):
    @functools.wraps(orig)
    def f(eps, delta):
        from scipy import special

        z = special.ndtri(delta)
        return z + float(np.sqrt(z * z + 4.0 * eps))  # 2 eps mis-set as 4 eps

    return f


def _white_mean_shift(orig):
    @functools.wraps(orig)
    def f(shifts):
        U = np.asarray(shifts, dtype=float)
        n = U.shape[1]
        dc2 = float((U**2).sum(1).mean())  # mean squared shift instead of the max
        d = orig(U)
        return dataclasses.replace(d, cov_unit=dc2 * np.eye(n), primal_unit=dc2 * n)

    return f


def _label_sensitivity_minus1(orig):
    return property(lambda self: max(0, orig.fget(self) - 1))


def _colored_half_removals(orig):
    @functools.wraps(orig)
    def f(shifts, *a, **k):
        return orig(np.asarray(shifts)[::2], *a, **k)

    return f


def _release_rates_unit_variance(orig):
    @functools.wraps(orig)
    def f(rates, noise_parameter, eps, rng, standard_draws=None):
        rates = np.asarray(rates, dtype=float)
        if standard_draws is None:
            standard_draws = rng.laplace(0.0, 1.0 / np.sqrt(2.0), size=rates.shape)  # unit variance, not unit scale
        return orig(rates, noise_parameter, eps, rng, standard_draws)

    return f


def _b_trdp_first_pair(orig):
    @functools.wraps(orig)
    def f(x, k):
        from dpgrid.mechanisms.spectral_adjacency import b_trdp_reading

        return b_trdp_reading(x, k, "first_pair")  # Fig. 1b's D(K) of the first two trajectories, not the max

    return f


def _psd_windows_longest_only(orig):
    @functools.wraps(orig)
    def f(n_samples, lengths, step):
        out = orig(n_samples, lengths, step)
        longest = max(w[1] for w in out)
        return [w for w in out if w[1] == longest]  # eq. (12)'s windows of one length only

    return f


def _centroids_ambient_diagonal(orig):
    """noisy_centroids with the design's covariance reduced to its diagonal in the centroid coordinates."""

    @functools.wraps(orig)
    def f(sol, design, eps_c, delta_c, calibration, rng, size=None):
        from dpgrid.mechanisms.colored_centroid_noise import CentroidNoiseDesign

        full = design.basis @ design.cov_unit @ design.basis.T
        dg = np.diag(np.diag(full))
        nd = CentroidNoiseDesign(np.eye(len(dg)), dg, design.method + "_diag", primal_unit=float(np.trace(dg)))
        return orig(sol, nd, eps_c, delta_c, calibration, rng, size)

    return f


def _u_max_mean(orig):
    return property(lambda self: 0.5 * (self.u_max_unoccupied + self.u_max_occupied))


def _eq13_squared_sensitivity_x4(orig):
    @functools.wraps(orig)
    def f(self, eps, delta, *, within_domain=True):
        g = orig(self, eps, delta, within_domain=within_domain)
        return 4.0 * g if self.name == "paper_eq13" else g  # eq. (13)'s ln(2/delta) read as ln(2/delta)/4

    return f


# ---- a second round written apart from the suite (an independent reviewer, without reading the mutants
# above); the audits catch all of them


def _with_noise_x4(orig):
    """The accounting's released model sees 4x the noise covariance that ``release`` adds."""

    @functools.wraps(orig)
    def f(self, noise_covs):
        return orig(self, 4.0 * np.asarray(noise_covs, dtype=float))

    return f


def _edges_first_pair_only(orig):
    """The class graph of each group shrunk to its first two labels (one undirected edge per group)."""

    @functools.wraps(orig)
    def f(groups):
        g = np.asarray(groups)
        out = []
        for v in dict.fromkeys(g.tolist()):
            m = np.flatnonzero(g == v)
            if m.size >= 2:
                out += [(int(m[0]), int(m[1])), (int(m[1]), int(m[0]))]
        return np.asarray(out, dtype=int).reshape(-1, 2)

    return f


def _release_top_half_eigen(orig):
    """Noise only along the top half of the noise covariance's eigenvectors, trace preserved (the least-noise
    half of the directions gets none)."""

    @functools.wraps(orig)
    def f(q, noise_cov, rng):
        c = np.asarray(noise_cov, dtype=float)
        w, u = np.linalg.eigh(0.5 * (c + c.T))
        k = w.size
        w2 = w.copy()
        w2[: k // 2] = 0.0
        if w2.sum() > 0:
            w2 *= w.sum() / w2.sum()
        return orig(q, (u * w2) @ u.T, rng)

    return f


def _trdp_noise_even_samples(orig):
    """TrDP noise added to the even samples of the trajectory only (odd samples released exactly)."""

    @functools.wraps(orig)
    def f(self, x, rng):
        x = np.asarray(x, dtype=float)
        out = orig(self, x, rng)
        out[..., 1::2] = x[..., 1::2]
        return out

    return f


def _corr_gauss_exact_dc(orig):
    """Proposition 2's release with the DC bin (frequency 0) of the PSD released without noise."""

    @functools.wraps(orig)
    def f(self, x, rng):
        out = orig(self, x, rng)
        out[0] = np.asarray(x, dtype=float)[0]
        return out

    return f


def _spdp_marginal_scaling(orig):
    """The mechanism built with noise_scaling = "marginal" (each bin's variance lambda_bar, lambda_min below it)."""

    @functools.wraps(orig)
    def f(self, b):
        return orig(dataclasses.replace(self, noise_scaling="marginal"), b)

    return f


def _label_noise_plus_one(orig):
    """The modulo-K label noise takes the value 1 whenever it is non-zero (not uniform on 1..K-1)."""

    @functools.wraps(orig)
    def f(size, K, rho, rng):
        nu = orig(size, K, rho, rng)
        return np.where(nu != 0, 1, 0)

    return f


def _loss_unit_half(orig):
    """Theorem 4's per-coordinate privacy loss log((1 - rho)(K - 1)/rho) halved."""

    @functools.wraps(orig)
    def f(rho, K):
        return 0.5 * orig(rho, K)

    return f


def _laplace_per_coordinate(orig):
    """The L1 sensitivity of the whole query divided by the length of its last axis (L1 read as a per-coordinate
    bound): a cluster sum's d B becomes B, the K counts' 1 becomes 1/K."""

    @functools.wraps(orig)
    def f(value, l1_sensitivity, epsilon, rng):
        v = np.asarray(value, dtype=float)
        n = v.shape[-1] if v.ndim else 1
        return orig(value, float(l1_sensitivity) / n, epsilon, rng)

    return f


def _design_sample_root_untransposed(orig):
    """CentroidNoiseDesign.sample with z @ A instead of z @ A.T (covariance diag(w) in the span coordinates
    instead of V diag(w) V')."""

    @functools.wraps(orig)
    def f(self, rng, gamma, size=None):
        import math

        w, V = np.linalg.eigh(self.cov_unit)
        A = V * np.sqrt(np.maximum(w, 0.0))
        m = 1 if size is None else size
        z = rng.standard_normal((m, A.shape[1]))
        eta = (z @ A) @ self.basis.T / math.sqrt(gamma)
        return eta[0] if size is None else eta

    return f


def _exact_pdp_is_eq13(orig):
    """The registry returns eq. (13)'s calibration for ``exact_pdp`` / ``proposition1``."""

    @functools.wraps(orig)
    def f(name):
        return orig("paper_eq13") if name in ("exact_pdp", "proposition1") else orig(name)

    return f


def _standard_laplace_gaussian(orig):
    """Unit 'Laplace' draws taken from the standard normal (same scale parameter, wrong law)."""

    @functools.wraps(orig)
    def f(rng, shape):
        return rng.standard_normal(shape)

    return f


def _rates_double_counted(orig):
    """Eq. (1) with the consumption counted twice: r = 2 alpha Z + beta (lambda still alpha max u_h)."""

    @functools.wraps(orig)
    def f(consumption, alpha, beta):
        return orig(consumption, 2.0 * alpha, beta)

    return f


def _support_prob_threshold(orig):
    """Prior support from the marginal occupancy probability > 0.1 instead of > 0 (unlikely states dropped from
    the Blowfish policy)."""

    @functools.wraps(orig)
    def f(pop):
        from dpgrid.models.occupancy import prior_occupied_probability

        p1 = prior_occupied_probability(pop)
        sup = np.stack([(1.0 - p1) > 0.1, p1 > 0.1], axis=2)
        sup |= ~sup.any(axis=2, keepdims=True)
        return sup

    return f


def _standard_laplace_scaled(factor):
    def make(orig):
        @functools.wraps(orig)
        def f(rng, shape):
            return factor * orig(rng, shape)

        return f

    return make


INDEPENDENT_MUTANTS = (
    Mutant(
        "classdp_with_noise_x4",
        "classdp",
        "calibration",
        "ClassGaussianModel.with_noise adds 4x the noise covariance: the accounting (claims) sees more noise than "
        "release adds",
        "dpgrid.mechanisms.gaussian_class",
        "ClassGaussianModel.with_noise",
        _with_noise_x4,
        member="method",
        rerun=("classdp_mechanism", "classdp_collect"),
    ),
    Mutant(
        "classdp_edges_first_pair",
        "classdp",
        "neighbours",
        "complete_edges_within_groups keeps one edge per group (its first two labels)",
        "dpgrid.mechanisms.gaussian_class",
        "complete_edges_within_groups",
        _edges_first_pair_only,
        rerun=("classdp_synthetic_model", "classdp_forecast_model", "classdp_mechanism", "classdp_collect"),
    ),
    Mutant(
        "classdp_release_top_half_eigen",
        "classdp",
        "correlation",
        "release puts the noise trace on the top half of the noise covariance's eigenvectors only",
        "dpgrid.mechanisms.gaussian_class",
        "release",
        _release_top_half_eigen,
    ),
    Mutant(
        "spdp_trdp_noise_even_samples",
        "spdp",
        "noise",
        "TrajectoryGaussianMechanism.release leaves the odd samples without noise",
        "dpgrid.mechanisms.trajectory_gaussian",
        "TrajectoryGaussianMechanism.release",
        _trdp_noise_even_samples,
        member="method",
    ),
    Mutant(
        "spdp_gauss_exact_dc",
        "spdp",
        "noise",
        "CorrelatedGaussianMechanism.release releases the DC bin without noise",
        "dpgrid.mechanisms.correlated_gaussian",
        "CorrelatedGaussianMechanism.release",
        _corr_gauss_exact_dc,
        member="method",
    ),
    Mutant(
        "spdp_marginal_scaling",
        "spdp",
        "calibration",
        "SpDPParams.mechanism builds Sigma = lambda_bar C_beta (noise_scaling marginal): lambda_min = lambda_bar/3",
        "dpgrid.papers.spdp.pipeline",
        "SpDPParams.mechanism",
        _spdp_marginal_scaling,
        member="method",
    ),
    Mutant(
        "dpkmeans_label_noise_plus_one",
        "dpkmeans",
        "noise",
        "label_noise: a non-zero label noise is always 1 (not uniform on 1..K-1)",
        "dpgrid.mechanisms.modulo_label",
        "label_noise",
        _label_noise_plus_one,
    ),
    Mutant(
        "dpkmeans_loss_unit_half",
        "dpkmeans",
        "calibration",
        "label_modulo_delta.loss_unit halved: rho_for_delta's bisection picks a rho whose true loss is 2 eps_l",
        "dpgrid.privacy.label_modulo_delta",
        "loss_unit",
        _loss_unit_half,
    ),
    Mutant(
        "dpkmeans_laplace_per_coordinate",
        "dpkmeans",
        "sensitivity",
        "laplace_release divides the L1 sensitivity by the last axis' length (sums: d B -> B; counts: 1 -> 1/K)",
        "dpgrid.mechanisms.laplace",
        "laplace_release",
        _laplace_per_coordinate,
    ),
    Mutant(
        "dpkmeans_design_root_untransposed",
        "dpkmeans",
        "correlation",
        "CentroidNoiseDesign.sample multiplies by the root untransposed (covariance diag(w), eigenbasis dropped)",
        "dpgrid.mechanisms.colored_centroid_noise",
        "CentroidNoiseDesign.sample",
        _design_sample_root_untransposed,
        member="method",
    ),
    Mutant(
        "dpkmeans_exact_pdp_is_eq13",
        "dpkmeans",
        "calibration",
        "the calibration registry answers exact_pdp with eq. (13) (gamma_c 4x at eps 30)",
        "dpgrid.privacy.gaussian",
        "calibration",
        _exact_pdp_is_eq13,
    ),
    Mutant(
        "blowfish_gaussian_draws",
        "blowfish",
        "calibration",
        "standard_laplace draws standard normals (Gaussian noise of scale lambda/eps: no pure eps-DP)",
        "dpgrid.mechanisms.laplace",
        "standard_laplace",
        _standard_laplace_gaussian,
    ),
    Mutant(
        "blowfish_rates_double_counted",
        "blowfish",
        "sensitivity",
        "optimal_rates computes 2 alpha Z + beta: the rate's sensitivity is 2 alpha u_h, lambda stays alpha u_h",
        "dpgrid.mechanisms.blowfish_pricing",
        "optimal_rates",
        _rates_double_counted,
    ),
    Mutant(
        "blowfish_support_threshold",
        "blowfish",
        "neighbours",
        "prior_support: a state is possible only when its marginal probability exceeds 0.1",
        "dpgrid.models.occupancy",
        "prior_support",
        _support_prob_threshold,
    ),
    Mutant(
        "blowfish_standard_laplace_x0.78",
        "blowfish",
        "noise",
        "standard_laplace draws Lap(0, 0.78): every Laplace scale 0.78x (true eps 1.28x the claim)",
        "dpgrid.mechanisms.laplace",
        "standard_laplace",
        _standard_laplace_scaled(0.78),
    ),
)


MUTANTS: dict[str, Mutant] = {
    m.name: m
    for m in (
        # ---- classdp
        Mutant(
            "classdp_release_noise_x0.6",
            "classdp",
            "noise",
            "release() draws eta with 0.6x the std of its noise_cov",
            "dpgrid.mechanisms.gaussian_class",
            "release",
            _release_scaled_noise(0.6),
        ),
        Mutant(
            "classdp_release_noise_x0.8",
            "classdp",
            "noise",
            "release() draws eta with 0.8x the std of its noise_cov",
            "dpgrid.mechanisms.gaussian_class",
            "release",
            _release_scaled_noise(0.8),
        ),
        Mutant(
            "classdp_release_diagonal",
            "classdp",
            "correlation",
            "release() drops the noise covariance's correlations",
            "dpgrid.mechanisms.gaussian_class",
            "release",
            _release_diagonal,
        ),
        Mutant(
            "classdp_sup_half_edges",
            "classdp",
            "neighbours",
            "delta_sup_over_edges takes the sup over i < j only",
            "dpgrid.privacy.gaussian_loss",
            "delta_sup_over_edges",
            _sup_half_edges,
            sub_threshold="the two orientations of an edge differ little: the claimed PDP delta moves by at most "
            "0.002 (quick run: forecast, rho 0.45, eps 1: true 0.3792 against the claim 0.3773, a ratio of 1.005), "
            "far below the 2x the audit is required to detect",
            rerun=("classdp_mechanism", "classdp_no_noise"),
        ),
        Mutant(
            "classdp_sup_low_surrogate_half",
            "classdp",
            "neighbours",
            "delta_sup_over_edges takes the sup over the half of the edges with the smallest surrogate metric "
            "(eq. 41) only: the worst edges are left out of the neighbour relation",
            "dpgrid.privacy.gaussian_loss",
            "delta_sup_over_edges",
            _sup_low_surrogate_half,
            rerun=("classdp_mechanism", "classdp_no_noise"),
        ),
        # ---- spdp
        Mutant(
            "spdp_noise_x0.5",
            "spdp",
            "noise",
            "CorrelatedGaussianMechanism.sample_noise scaled by 0.5",
            "dpgrid.mechanisms.correlated_gaussian",
            "CorrelatedGaussianMechanism.sample_noise",
            _scaled_result(0.5),
            member="method",
        ),
        Mutant(
            "spdp_b_spdp_x0.5",
            "spdp",
            "sensitivity",
            "B_SpDP (eq. 12) under-reported by 0.5",
            "dpgrid.mechanisms.spectral_adjacency",
            "b_spdp",
            lambda orig: functools.wraps(orig)(
                lambda *a, **k: dataclasses.replace(orig(*a, **k), b=0.5 * orig(*a, **k).b)
            ),
            rerun=("spdp_calibration",),
        ),
        Mutant(
            "spdp_lambda_bar_x0.25",
            "spdp",
            "calibration",
            "Proposition 2's lambda_bar multiplied by 0.25",
            "dpgrid.mechanisms.correlated_gaussian",
            "proposition2_lambda_bar",
            _scaled_result(0.25),
        ),
        Mutant(
            "spdp_lambda_min_ignores_correlation",
            "spdp",
            "correlation",
            "min_eigenpair of a correlation matrix returns its unit diagonal: Sigma scaled as if uncorrelated",
            "dpgrid.mechanisms.correlated_gaussian",
            "min_eigenpair",
            _min_eigenpair_unit,
        ),
        Mutant(
            "spdp_b_trdp_x0.5",
            "spdp",
            "neighbours",
            "B_TrDP (eq. 13) from half the distance",
            "dpgrid.mechanisms.spectral_adjacency",
            "b_trdp",
            _scaled_result(0.5),
            rerun=("spdp_calibration",),
        ),
        Mutant(
            "spdp_trdp_sigma_x0.5",
            "spdp",
            "calibration",
            "trajectory_sigma (Proposition 1) times 0.5",
            "dpgrid.mechanisms.trajectory_gaussian",
            "trajectory_sigma",
            _scaled_result(0.5),
        ),
        # ---- dpkmeans
        Mutant(
            "dpkmeans_loo_shifts_x0.7",
            "dpkmeans",
            "sensitivity",
            "leave-one-out shifts under-reported by 0.7",
            "dpgrid.mechanisms.kmeans_sensitivity",
            "leave_one_out_analysis",
            _loo_shifts_scaled(0.7),
            rerun=("dpkmeans_clustering",),
        ),
        Mutant(
            "dpkmeans_design_noise_x0.6",
            "dpkmeans",
            "noise",
            "CentroidNoiseDesign.sample scaled by 0.6",
            "dpgrid.mechanisms.colored_centroid_noise",
            "CentroidNoiseDesign.sample",
            _design_sample_scaled(0.6),
            member="method",
        ),
        Mutant(
            "dpkmeans_design_diagonal",
            "dpkmeans",
            "correlation",
            "CentroidNoiseDesign.sample drops the correlations",
            "dpgrid.mechanisms.colored_centroid_noise",
            "CentroidNoiseDesign.sample",
            _design_sample_diagonal,
            member="method",
        ),
        Mutant(
            "dpkmeans_gamma_c_x2",
            "dpkmeans",
            "calibration",
            "gamma_c (allowed squared sensitivity) doubled",
            "dpgrid.mechanisms.colored_centroid_noise",
            "gamma_c",
            _scaled_result(2.0),
        ),
        Mutant(
            "dpkmeans_label_sensitive_half",
            "dpkmeans",
            "neighbours",
            "the label-sensitive set L loses every other point (its first, third, ...)",
            "dpgrid.mechanisms.kmeans_sensitivity",
            "LeaveOneOutAnalysis.label_sensitive",
            _label_sensitive_half,
            member="property",
        ),
        Mutant(
            "dpkmeans_label_rho_x0.3",
            "dpkmeans",
            "noise",
            "label_noise draws with 0.3x the calibrated rho",
            "dpgrid.mechanisms.modulo_label",
            "label_noise",
            _label_noise_rho_scaled(0.3),
        ),
        Mutant(
            "dpkmeans_lloyd_noise_x0.5",
            "dpkmeans",
            "noise",
            "dplloyd_step's Laplace noise at 0.5x its scale",
            "dpgrid.mechanisms.dp_kmeans_baselines",
            "dplloyd_step",
            _lloyd_noise_scaled(0.5),
        ),
        # ---- blowfish
        Mutant(
            "blowfish_sensitivity_min",
            "blowfish",
            "sensitivity",
            "HouseholdPopulation.sensitivity takes the smaller of the two occupancy bounds",
            "dpgrid.models.occupancy",
            "HouseholdPopulation.sensitivity",
            _sensitivity_min,
            member="property",
        ),
        Mutant(
            "blowfish_laplace_x0.6",
            "blowfish",
            "noise",
            "laplace_noise scaled by 0.6",
            "dpgrid.mechanisms.blowfish_pricing",
            "laplace_noise",
            _scaled_result(0.6),
        ),
        Mutant(
            "blowfish_naive_x0.6",
            "blowfish",
            "calibration",
            "naive_noise_parameter times 0.6",
            "dpgrid.mechanisms.blowfish_pricing",
            "naive_noise_parameter",
            _scaled_result(0.6),
        ),
        Mutant(
            "blowfish_drop_largest_household",
            "blowfish",
            "neighbours",
            "blowfish_noise_parameter leaves the household with the largest bound out of kappa",
            "dpgrid.mechanisms.blowfish_pricing",
            "blowfish_noise_parameter",
            _blowfish_lambda_drop_largest,
            sub_threshold="the bounds u_h = max(u_h^(0), u_h^(1)) of 200 households are dense near their largest "
            "(quick population: the two largest 0.9983 and 0.9973): lambda falls by about 0.1 %, a true eps of "
            "about 1.001x the claim, far below the 1.25x the audit is required to detect",
        ),
        Mutant(
            "blowfish_drop_top_quarter",
            "blowfish",
            "neighbours",
            "blowfish_noise_parameter leaves the households whose bound is above 0.75x the largest out of kappa "
            "(lambda falls by >= 25 %: a true eps of >= 1.33x the claim)",
            "dpgrid.mechanisms.blowfish_pricing",
            "blowfish_noise_parameter",
            _blowfish_lambda_drop_top(0.25),
        ),
        # ---- written apart from the ones above (an independent reviewer's breakages)
        Mutant(
            "classdp_release_root_untransposed",
            "classdp",
            "correlation",
            "release() draws eta = z @ root instead of z @ root.T: covariance diag(eigenvalues), correlations lost",
            "dpgrid.mechanisms.gaussian_class",
            "release",
            _release_root_untransposed,
        ),
        Mutant(
            "classdp_exact_delta_halved",
            "classdp",
            "calibration",
            "the exact PDP evaluator (delta_exact_with_error, every binding) returns half the tail",
            "dpgrid.privacy.gaussian_loss.exact",
            "delta_exact_with_error",
            _exact_delta_halved,
            rerun=("classdp_mechanism", "classdp_no_noise"),
        ),
        Mutant(
            "spdp_pdp_sensitivity_4eps",
            "spdp",
            "calibration",
            "pdp_sensitivity: D = z + sqrt(z^2 + 4 eps) (constant 2 mis-set as 4)",
            "dpgrid.privacy.gaussian",
            "pdp_sensitivity",
            _pdp_sensitivity_4eps,
        ),
        Mutant(
            "spdp_trdp_sample_noise_x0.6",
            "spdp",
            "noise",
            "TrajectoryGaussianMechanism.sample_noise scaled by 0.6",
            "dpgrid.mechanisms.trajectory_gaussian",
            "TrajectoryGaussianMechanism.sample_noise",
            _scaled_result(0.6),
            member="method",
        ),
        Mutant(
            "dpkmeans_white_mean_shift",
            "dpkmeans",
            "sensitivity",
            "white_noise_design: Delta_c^2 = mean squared shift instead of the max",
            "dpgrid.mechanisms.colored_centroid_noise",
            "white_noise_design",
            _white_mean_shift,
        ),
        Mutant(
            "dpkmeans_label_sensitivity_minus1",
            "dpkmeans",
            "sensitivity",
            "LeaveOneOutAnalysis.label_sensitivity off by one (Delta_1 - 1)",
            "dpgrid.mechanisms.kmeans_sensitivity",
            "LeaveOneOutAnalysis.label_sensitivity",
            _label_sensitivity_minus1,
            member="property",
        ),
        Mutant(
            "dpkmeans_colored_half_removals",
            "dpkmeans",
            "neighbours",
            "optimal_colored_design constrained by every other leave-one-out shift only",
            "dpgrid.mechanisms.colored_centroid_noise",
            "optimal_colored_design",
            _colored_half_removals,
            rerun=("dpkmeans_clustering",),
        ),
        Mutant(
            "blowfish_unit_variance_laplace",
            "blowfish",
            "calibration",
            "release_rates draws its standard Laplace with unit variance (scale 1/sqrt 2), not unit scale",
            "dpgrid.mechanisms.blowfish_pricing",
            "release_rates",
            _release_rates_unit_variance,
        ),
        Mutant(
            "spdp_b_trdp_first_pair",
            "spdp",
            "neighbours",
            "b_trdp: the distance of the first two trajectories (Fig. 1b's D(K)) instead of the max over all pairs",
            "dpgrid.mechanisms.spectral_adjacency",
            "b_trdp",
            _b_trdp_first_pair,
            rerun=("spdp_calibration",),
        ),
        Mutant(
            "spdp_psd_windows_longest_only",
            "spdp",
            "neighbours",
            "psd_windows: eq. (12)'s windows of the longest length only (B_SpDP over fewer pairs)",
            "dpgrid.mechanisms.spectral_adjacency",
            "psd_windows",
            _psd_windows_longest_only,
            rerun=("spdp_calibration",),
        ),
        Mutant(
            "dpkmeans_centroids_ambient_diag",
            "dpkmeans",
            "correlation",
            "noisy_centroids: the design's covariance reduced to its diagonal in the K x d centroid coordinates",
            "dpgrid.papers.dpkmeans.algorithm1",
            "noisy_centroids",
            _centroids_ambient_diagonal,
        ),
        Mutant(
            "blowfish_naive_u_max_mean",
            "blowfish",
            "sensitivity",
            "Settings.u_max (the naive baseline's bound) the mean of the two state bounds instead of their max",
            "dpgrid.papers.blowfish.day",
            "Settings.u_max",
            _u_max_mean,
            member="property",
        ),
        Mutant(
            "dpkmeans_eq13_gamma_x4",
            "dpkmeans",
            "calibration",
            "the paper_eq13 calibration's gamma_c times 4 (noise std halved; exact_pdp untouched)",
            "dpgrid.privacy.gaussian",
            "GaussianCalibration.squared_sensitivity",
            _eq13_squared_sensitivity_x4,
            member="method",
        ),
    )
}


MUTANTS.update({m.name: m for m in INDEPENDENT_MUTANTS})


def _lloyd_laplace_scaled(count_factor, sum_factor):
    """The DP Lloyd step's noise calls (``laplace_release`` as dp_kmeans_baselines calls it) with the counts' scale
    (the query of L1 sensitivity 1) times ``count_factor`` and the sums' (sensitivity d B) times ``sum_factor``."""

    def make(orig):
        @functools.wraps(orig)
        def f(value, l1_sensitivity, epsilon, rng):
            factor = count_factor if float(l1_sensitivity) == 1.0 else sum_factor
            return orig(value, factor * float(l1_sensitivity), epsilon, rng)

        return f

    return make


def _lloyd_count_epsilon_scaled(factor):
    """The counts' noise call at ``factor`` times its epsilon, the sums' untouched: count_share 0.5 spent as
    0.5 ``factor`` on the counts while the sums keep 0.5 (true eps (0.5 factor + 0.5) x the claim)."""

    def make(orig):
        @functools.wraps(orig)
        def f(value, l1_sensitivity, epsilon, rng):
            e = factor * float(epsilon) if float(l1_sensitivity) == 1.0 else epsilon
            return orig(value, l1_sensitivity, e, rng)

        return f

    return make


#: "Too little noise" in the DP Lloyd step, true eps 1.25x to 1.5x the claim (added with the one-dimensional dense
#: pair of the DP Lloyd audit, docs/privacy_audits.md); with dpkmeans_lloyd_noise_x0.5 (2x) above.
LLOYD_NOISE_MUTANTS = (
    Mutant(
        "dpkmeans_lloyd_counts_x0.5",
        "dpkmeans",
        "noise",
        "the DP Lloyd step's K noisy counts at 0.5x their Laplace scale, the sums untouched (true eps 1.5x)",
        "dpgrid.mechanisms.dp_kmeans_baselines",
        "laplace_release",
        _lloyd_laplace_scaled(0.5, 1.0),
    ),
    Mutant(
        "dpkmeans_lloyd_counts_x0.6",
        "dpkmeans",
        "noise",
        "the DP Lloyd step's K noisy counts at 0.6x their Laplace scale, the sums untouched (true eps 1.33x)",
        "dpgrid.mechanisms.dp_kmeans_baselines",
        "laplace_release",
        _lloyd_laplace_scaled(0.6, 1.0),
    ),
    Mutant(
        "dpkmeans_lloyd_sums_x0.5",
        "dpkmeans",
        "noise",
        "the DP Lloyd step's noisy sums at 0.5x their Laplace scale, the counts untouched (true eps 1.5x)",
        "dpgrid.mechanisms.dp_kmeans_baselines",
        "laplace_release",
        _lloyd_laplace_scaled(1.0, 0.5),
    ),
    Mutant(
        "dpkmeans_lloyd_noise_x0.8",
        "dpkmeans",
        "noise",
        "dplloyd_step's Laplace noise (counts and sums) at 0.8x its scale (true eps 1.25x)",
        "dpgrid.mechanisms.dp_kmeans_baselines",
        "dplloyd_step",
        _lloyd_noise_scaled(0.8),
    ),
    Mutant(
        "dpkmeans_lloyd_count_eps_x1.5",
        "dpkmeans",
        "calibration",
        "the DP Lloyd step's counts at eps 0.75 eps (count_share 0.75), the sums at 0.5 eps (true eps 1.25x)",
        "dpgrid.mechanisms.dp_kmeans_baselines",
        "laplace_release",
        _lloyd_count_epsilon_scaled(1.5),
    ),
)

MUTANTS.update({m.name: m for m in LLOYD_NOISE_MUTANTS})


def apply(name: str) -> Mutant:
    """Replace the mutant's public name in its module (before any other module imports it)."""
    m = MUTANTS[name]
    mod = importlib.import_module(m.module)
    if "." in m.attribute:
        cls_name, member = m.attribute.split(".")
        cls = getattr(mod, cls_name)
        orig = cls.__dict__[member]
        setattr(cls, member, m.make(orig))
    else:
        setattr(mod, m.attribute, m.make(getattr(mod, m.attribute)))
    return m
