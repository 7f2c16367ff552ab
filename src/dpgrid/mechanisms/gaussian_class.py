"""Additive Gaussian mechanisms for class-based (label) privacy.

Ramakrishna et al., *Differential Privacy for Class-based Data: A Practical Gaussian Mechanism*
(classdp), Sec. IV. Label X has query answers ``q ~ N(mu_X, Sigma_X)``; the mechanism releases
``q~ = q + eta`` with ``eta ~ N(0, Sigma_eta|X)`` so that ``q~ ~ N(mu_X, Sigma_X + Sigma_eta|X)``
(eqs. 25-26). Three mechanisms at one accuracy budget:

* :func:`gaussian_class_mechanism` - the proposed one: Algorithm 1 (block-coordinate descent on
  the precision matrices ``A_X = (Sigma_X + Sigma_eta|X)^{-1}`` minimising the worst surrogate
  ``J = max_{(X,X')} g_XX'`` of eqs. 46-47, step-size rule of Lemma 2, PSD projection eq. 49),
  then eq. (50) for ``Sigma_eta|X``;
* :func:`white_noise_mechanism` - ``Sigma_eta = sigma^2 I`` (the baseline of Sec. VI-A);
* :func:`no_noise_mechanism` - ``Sigma_eta = 0``.

Accuracy budget. Eq. (13) defines rho as the per-entry MSE, ``Tr(Sigma_eta)/k``, but the
experiments (white noise ``sigma^2 = rho/D``, Algorithm 1's start ``Sigma_X + (rho/k) I``, eq. 50's
scaling to trace rho) use ``Tr(Sigma_eta) = rho``. :func:`noise_trace` implements both rules; the
same rule is applied to the proposed and the white mechanism so they spend the same budget.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field

import numpy as np

LOG = logging.getLogger(__name__)

__all__ = [
    "TRACE_RULES",
    "noise_trace",
    "ClassGaussianModel",
    "complete_edges_within_groups",
    "MechanismResult",
    "gaussian_class_mechanism",
    "white_noise_mechanism",
    "no_noise_mechanism",
    "release",
    "bayes_classifier_accuracy",
]

#: ``total``: Tr(Sigma_eta) = rho (what the paper's experiments do);
#: ``per_entry``: Tr(Sigma_eta)/k = rho (eq. 13 as printed).
TRACE_RULES = ("total", "per_entry")


def noise_trace(rho: float, k: int, rule: str) -> float:
    """Trace of the noise covariance allowed by accuracy budget ``rho`` under ``rule`` (see module doc)."""
    if not (rho > 0 and math.isfinite(rho)):
        raise ValueError(f"accuracy budget rho must be positive, got {rho!r}")
    if rule == "total":
        return float(rho)
    if rule == "per_entry":
        return float(rho) * k
    raise ValueError(f"unknown accuracy-budget rule {rule!r}; use one of {TRACE_RULES}")


@dataclass
class ClassGaussianModel:
    """Per-label Gaussian query distributions and the directed edges of the neighbourhood graph."""

    means: np.ndarray  # (n, k)
    covs: np.ndarray  # (n, k, k)
    edges: np.ndarray  # (E, 2) directed pairs (X, X'), both directions present
    labels: list = field(default_factory=list)

    def __post_init__(self) -> None:
        self.means = np.asarray(self.means, dtype=float)
        self.covs = np.asarray(self.covs, dtype=float)
        self.edges = np.asarray(self.edges, dtype=int).reshape(-1, 2)
        n, k = self.means.shape
        if self.covs.shape != (n, k, k):
            raise ValueError(f"covs must have shape {(n, k, k)}, got {self.covs.shape}")
        for i in range(n):
            c = self.covs[i]
            if not np.allclose(c, c.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(c).max())):
                raise ValueError(f"covariance of label {self.label(i)!r} is not symmetric")
            if np.linalg.eigvalsh(c).min() <= 0:
                raise ValueError(f"covariance of label {self.label(i)!r} is not positive definite")
        if self.edges.size:
            if self.edges.min() < 0 or self.edges.max() >= n:
                raise ValueError(f"edges refer to labels outside 0..{n - 1}")
            if np.any(self.edges[:, 0] == self.edges[:, 1]):
                raise ValueError("edges must not be self-loops")
            fwd = {tuple(e) for e in self.edges.tolist()}
            missing = [e for e in fwd if (e[1], e[0]) not in fwd]
            if missing:
                raise ValueError(
                    f"the neighbourhood graph must be undirected (eq. 3); missing reverse of {missing[:3]}"
                )
        if not self.labels:
            self.labels = [str(i) for i in range(n)]

    @property
    def n(self) -> int:
        return self.means.shape[0]

    @property
    def k(self) -> int:
        return self.means.shape[1]

    def label(self, i: int) -> str:
        return self.labels[i] if self.labels else str(i)

    def with_noise(self, noise_covs: np.ndarray) -> ClassGaussianModel:
        """The released answers' model: covariances Sigma_X + Sigma_eta|X (eq. 26)."""
        return ClassGaussianModel(self.means, self.covs + noise_covs, self.edges, list(self.labels))

    def components(self) -> list[np.ndarray]:
        """Connected components (label index arrays) of the neighbourhood graph with >= 1 edge."""
        from scipy.sparse import csgraph, csr_matrix

        if not self.edges.size:
            return []
        g = csr_matrix((np.ones(len(self.edges)), (self.edges[:, 0], self.edges[:, 1])), shape=(self.n, self.n))
        nc, lab = csgraph.connected_components(g, directed=False)
        has_edge = np.zeros(self.n, bool)
        has_edge[self.edges.ravel()] = True
        return [np.flatnonzero(lab == c) for c in range(nc) if has_edge[lab == c].any()]


def save_class_model(path, model: ClassGaussianModel, **extra) -> None:
    """Write ``model`` (and ``extra`` arrays) to an ``.npz`` file atomically (:func:`dpgrid.core.io.save_npz`)."""
    from dpgrid.core.io import save_npz

    save_npz(
        path, means=model.means, covs=model.covs, edges=model.edges, labels=np.asarray(model.labels, dtype=str), **extra
    )


def load_class_model(path) -> ClassGaussianModel:
    """The model written by :func:`save_class_model`."""
    with np.load(path, allow_pickle=False) as z:
        return ClassGaussianModel(z["means"], z["covs"], z["edges"], [str(s) for s in z["labels"]])


def complete_edges_within_groups(groups) -> np.ndarray:
    """Directed edges between every two distinct labels of the same group (Sec. VI: same cluster)."""
    groups = np.asarray(groups)
    out = [(i, j) for i in range(groups.size) for j in range(groups.size) if i != j and groups[i] == groups[j]]
    return np.asarray(out, dtype=int).reshape(-1, 2)


def _psd_project(a: np.ndarray, floor: float) -> np.ndarray:
    """Projection onto the PSD cone (eq. 49), eigenvalues floored at ``floor`` > 0 so ln|A| stays finite."""
    from scipy import linalg

    w, u = linalg.eigh(0.5 * (a + a.T))
    return (u * np.maximum(w, floor)) @ u.T


def _logdet(a: np.ndarray) -> float:
    sign, ld = np.linalg.slogdet(a)
    return ld if sign > 0 else -math.inf


@dataclass
class MechanismResult:
    """Noise covariances of a mechanism plus, for Algorithm 1, its optimisation record."""

    name: str
    noise_covs: np.ndarray  # (n, k, k)
    trace: float  # Tr(Sigma_eta|X) for every X
    precisions: np.ndarray | None = None  # A_X* (Algorithm 1)
    j_history: list = field(default_factory=list)  # J(t) per iteration, per component
    step_history: list = field(default_factory=list)  # alpha used at each iteration
    component_of_iteration: list = field(default_factory=list)
    stop_reasons: list = field(default_factory=list)
    white_fallback: list = field(default_factory=list)  # labels where eq. (50) had an empty PSD part


def white_noise_mechanism(model: ClassGaussianModel, rho: float, trace_rule: str) -> MechanismResult:
    """White Gaussian noise ``sigma^2 I`` with ``k sigma^2`` = the noise trace of budget rho (Sec. VI-A)."""
    tr = noise_trace(rho, model.k, trace_rule)
    cov = np.eye(model.k) * tr / model.k
    return MechanismResult("white", np.repeat(cov[None], model.n, axis=0), tr)


def no_noise_mechanism(model: ClassGaussianModel) -> MechanismResult:
    """Release the query as is (the 'no-noise' baseline)."""
    return MechanismResult("no_noise", np.zeros((model.n, model.k, model.k)), 0.0)


def _algorithm1_component(
    model: ClassGaussianModel,
    comp: np.ndarray,
    comp_id: int,
    prec: np.ndarray,
    logdet: np.ndarray,
    res: MechanismResult,
    *,
    alpha0: float,
    alpha_min: float,
    max_iter: int,
    rel_tol: float,
    window: int,
    eig_floor: float,
    max_halvings: int,
) -> None:
    """Algorithm 1, steps 2-5, on one connected component: updates ``prec`` and ``logdet`` in place and records
    the component's J history, steps and stop reason in ``res`` (see :func:`gaussian_class_mechanism`)."""
    in_comp = np.isin(model.edges[:, 0], comp)
    edges = model.edges[in_comp]
    src, dst = edges[:, 0], edges[:, 1]
    vs = model.means[dst] - model.means[src]  # v_XX' = mu_X' - mu_X
    g = np.einsum("ei,eij,ej->e", vs, prec[dst], vs) - logdet[dst] + logdet[src]
    hist = [float(g.max())]
    reason = "max_iter"
    for _t in range(max_iter):
        J = float(g.max())
        e_star = int(np.argmax(g))
        j = int(dst[e_star])
        v = vs[e_star]
        a_j = prec[j]
        a_inv = np.linalg.inv(a_j)
        G = np.outer(v, v) - a_inv  # gradient of g_{X*,X'*} w.r.t. A_X'*
        tr_aig = float(v @ a_inv @ v - np.trace(a_inv @ a_inv))  # Tr(A^{-1} G)
        into = np.flatnonzero(dst == j)  # g_{X, X'*}: A_X'* is the target
        outof = np.flatnonzero(src == j)  # g_{X'*, X}: A_X'* is the source
        rate = np.empty(into.size + outof.size)
        rate[: into.size] = -np.einsum("ei,ij,ej->e", vs[into], G, vs[into]) + tr_aig
        rate[into.size :] = -tr_aig
        gaps = np.concatenate([J - g[into], J - g[outof]])
        pos = rate > 1e-300
        lemma2 = float(np.min(gaps[pos] / rate[pos])) if np.any(pos) else math.inf
        alpha = min(alpha0, max(0.0, lemma2))
        if alpha <= alpha_min:
            reason = "lemma2_step_zero"
            break
        accepted = False
        for _ in range(max_halvings):
            a_new = _psd_project(a_j - alpha * G, eig_floor)
            ld_new = _logdet(a_new)
            g_new = g.copy()
            g_new[into] = np.einsum("ei,ij,ej->e", vs[into], a_new, vs[into]) - ld_new + logdet[src[into]]
            g_new[outof] = (
                np.einsum("ei,eij,ej->e", vs[outof], prec[dst[outof]], vs[outof]) - logdet[dst[outof]] + ld_new
            )
            if np.all(np.isfinite(g_new)) and g_new.max() <= J:
                accepted = True
                break
            alpha *= 0.5
            if alpha < alpha_min:
                break
        if not accepted:
            reason = "no_descent_step"
            break
        prec[j], logdet[j], g = a_new, ld_new, g_new
        hist.append(float(g.max()))
        res.step_history.append(alpha)
        res.component_of_iteration.append(comp_id)
        if len(hist) > window and hist[-window - 1] - hist[-1] < rel_tol * max(1.0, abs(hist[-1])):
            reason = "converged"
            break
    res.j_history.append(hist)
    res.stop_reasons.append(reason)
    LOG.info(
        "Algorithm 1, component %d (%d labels, %d edges): J %.6g -> %.6g in %d iterations (%s)",
        comp_id,
        len(comp),
        len(edges),
        hist[0],
        hist[-1],
        len(hist) - 1,
        reason,
    )


def _eq50_noise_covariances(model: ClassGaussianModel, prec: np.ndarray, tr: float, res: MechanismResult) -> None:
    """Eq. (50) into ``res.noise_covs``: trace-T noise from the PSD part of A*^{-1} - Sigma_X (white where that part
    is zero, listed in ``res.white_fallback``, or where a label has no neighbours)."""
    n, k = model.n, model.k
    in_graph = np.zeros(n, bool)
    if model.edges.size:
        in_graph[model.edges.ravel()] = True
    for i in range(n):
        if not in_graph[i]:
            res.noise_covs[i] = np.eye(k) * tr / k  # no neighbours: no constraint, white noise
            continue
        p = _psd_project(np.linalg.inv(prec[i]) - model.covs[i], 0.0)
        tp = float(np.trace(p))
        if tp <= 1e-12 * max(1.0, float(np.trace(model.covs[i]))):
            res.noise_covs[i] = np.eye(k) * tr / k
            res.white_fallback.append(model.label(i))
        else:
            res.noise_covs[i] = tr * p / tp


def gaussian_class_mechanism(
    model: ClassGaussianModel,
    rho: float,
    *,
    trace_rule: str,
    alpha0: float = 0.1,
    alpha_min: float = 1e-8,
    max_iter: int = 2000,
    rel_tol: float = 1e-6,
    window: int = 50,
    eig_floor: float = 1e-9,
    max_halvings: int = 60,
) -> MechanismResult:
    """The proposed mechanism: Algorithm 1 on every connected component, then eq. (50).

    Algorithm 1 (per component of the neighbourhood graph; the sup over all edges is the max over
    components, so minimising each component's worst pair minimises J):

    1. ``A_X = (Sigma_X + (T/k) I)^{-1}`` with T the noise trace of budget rho (white start).
    2. Find the worst directed pair ``(X*, X'*) = argmax g_XX'`` (eqs. 46-47), J(t) its value.
    3. Gradient step on the neighbour's precision (the variable whose gradient is
       ``v v^T - A_X'^{-1}``): ``A_X'* <- Proj_PSD(A_X'* - alpha G)`` (eqs. 48-49).
    4. Step size (Lemma 2): ``alpha = min(alpha0, max(0, min_e (J - g_e)/r_e))`` over the other
       affected pairs e whose first-order rate r_e > 0 (the linearised conditions b, d of eq. 52,
       derived here from eq. 46 because the printed constants are garbled). Because
       ``g_{X,X'*}`` is convex in ``A_X'*`` the linearisation can be optimistic, so alpha is then
       halved until J(t+1) <= J(t) holds exactly (a safeguard; the step never increases J).
    5. Stop when alpha falls below ``alpha_min`` (the paper's ``while alpha > 0``), when J
       decreased by less than ``rel_tol`` (relative) over the last ``window`` iterations, or after
       ``max_iter`` iterations.

    Then eq. (50): ``Sigma_eta|X = T P_X / Tr(P_X)`` with ``P_X = Proj_PSD(A_X*^{-1} - Sigma_X)``;
    if ``P_X`` is zero (the optimiser removed no uncertainty for X) white noise of trace T is used
    and the label is listed in ``white_fallback``.
    """
    n, k = model.n, model.k
    tr = noise_trace(rho, k, trace_rule)
    sigma_t = model.covs + np.eye(k)[None] * tr / k
    prec = np.linalg.inv(sigma_t)
    prec = 0.5 * (prec + np.transpose(prec, (0, 2, 1)))
    logdet = np.array([_logdet(p) for p in prec])
    res = MechanismResult("proposed", np.zeros((n, k, k)), tr)

    for comp_id, comp in enumerate(model.components()):
        _algorithm1_component(
            model,
            comp,
            comp_id,
            prec,
            logdet,
            res,
            alpha0=alpha0,
            alpha_min=alpha_min,
            max_iter=max_iter,
            rel_tol=rel_tol,
            window=window,
            eig_floor=eig_floor,
            max_halvings=max_halvings,
        )
    _eq50_noise_covariances(model, prec, tr, res)
    res.precisions = prec
    return res


def release(q: np.ndarray, noise_cov: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The mechanism's output ``q + eta``, ``eta ~ N(0, noise_cov)`` (Algorithm 2, step 4); rows of q."""
    q = np.atleast_2d(np.asarray(q, dtype=float))
    k = q.shape[1]
    w, u = np.linalg.eigh(0.5 * (noise_cov + noise_cov.T))
    root = u * np.sqrt(np.clip(w, 0.0, None))
    return q + rng.standard_normal(q.shape) @ root.T if k else q


def bayes_classifier_accuracy(
    model: ClassGaussianModel, noise_covs: np.ndarray, n_per_label: int, rng: np.random.Generator
) -> dict:
    """Attack: the analyst's Bayes-optimal guess of the label from one released answer.

    For every label X with neighbours, draw ``q ~ N(mu_X, Sigma_X)``, release ``q + eta`` and
    classify among X's connected component with a uniform prior (maximum likelihood under the
    released model ``N(mu_Y, Sigma_Y + Sigma_eta|Y)``, which the analyst is assumed to know).
    Returns overall accuracy, the chance level (mean 1/component size) and the counts.
    """
    from scipy import linalg

    released = model.with_noise(noise_covs)
    correct = total = 0
    chance = []
    for comp in model.components():
        chols = [linalg.cholesky(released.covs[y], lower=True) for y in comp]
        logdets = np.array([2.0 * np.sum(np.log(np.diag(c))) for c in chols])
        for x in comp:
            q = rng.multivariate_normal(model.means[x], model.covs[x], size=n_per_label, method="cholesky")
            qt = release(q, noise_covs[x], rng)
            ll = np.empty((n_per_label, comp.size))
            for col, y in enumerate(comp):
                z = linalg.solve_triangular(chols[col], (qt - released.means[y]).T, lower=True)
                ll[:, col] = -0.5 * np.sum(z * z, axis=0) - 0.5 * logdets[col]
            guess = comp[np.argmax(ll, axis=1)]
            correct += int(np.sum(guess == x))
            total += n_per_label
            chance.append(1.0 / comp.size)
    return {
        "accuracy": correct / total if total else float("nan"),
        "chance": float(np.mean(chance)) if chance else float("nan"),
        "correct": correct,
        "trials": total,
    }
