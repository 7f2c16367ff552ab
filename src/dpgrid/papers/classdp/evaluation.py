"""delta(eps) curves of the classdp mechanisms on one class model, in one call (for sweeps).

Ramakrishna et al., *Differential Privacy for Class-based Data: A Practical Gaussian Mechanism*:
for accuracy budget rho the no-noise, white-noise (Sec. VI-A baseline) and proposed (Algorithm 1
+ eq. 50) mechanisms, and the PDP delta(eps) = sup over the directed edges of Pr(L_XX' > eps)
(Definition 1, Proposition 1), exactly as the pipeline's ``classdp_no_noise`` /
``classdp_mechanism`` jobs compute them (same functions, same settings), without the audit and
the attack. Used by the within-cluster-similarity and accuracy-normalisation sweeps
(workflow/papers/classdp/classdp.md, "Fidelity").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpgrid.mechanisms.gaussian_class import (
    ClassGaussianModel,
    MechanismResult,
    gaussian_class_mechanism,
    no_noise_mechanism,
    white_noise_mechanism,
)
from dpgrid.privacy.gaussian_loss import delta_sup_over_edges

__all__ = ["Algorithm1Settings", "make_mechanism", "delta_curves"]


@dataclass(frozen=True)
class Algorithm1Settings:
    """``classdp.algorithm1`` (config/config.yaml)."""

    alpha0: float = 0.1
    alpha_min: float = 1e-8
    max_iter: int = 3000
    rel_tol: float = 1e-6
    window: int = 50
    eig_floor: float = 1e-9

    @classmethod
    def from_config(cls, a: dict) -> Algorithm1Settings:
        return cls(
            float(a["alpha0"]),
            float(a["alpha_min"]),
            int(a["max_iter"]),
            float(a["rel_tol"]),
            int(a["window"]),
            float(a["eig_floor"]),
        )


def make_mechanism(
    name: str, model: ClassGaussianModel, rho: float, trace_rule: str, alg1: Algorithm1Settings = Algorithm1Settings()
) -> MechanismResult:
    """``no_noise``, ``white`` or ``proposed`` at accuracy budget rho (the pipeline's choice of functions)."""
    if name == "no_noise":
        return no_noise_mechanism(model)
    if name == "white":
        return white_noise_mechanism(model, rho, trace_rule)
    if name == "proposed":
        return gaussian_class_mechanism(
            model,
            rho,
            trace_rule=trace_rule,
            alpha0=alg1.alpha0,
            alpha_min=alg1.alpha_min,
            max_iter=alg1.max_iter,
            rel_tol=alg1.rel_tol,
            window=alg1.window,
            eig_floor=alg1.eig_floor,
        )
    raise ValueError(f"unknown mechanism {name!r}; use no_noise, white or proposed")


def delta_curves(
    model: ClassGaussianModel,
    rhos,
    eps,
    *,
    trace_rule: str = "total",
    mechanisms=("no_noise", "white", "proposed"),
    alg1: Algorithm1Settings = Algorithm1Settings(),
    tol: float = 1e-8,
    keep_noise: bool = False,
):
    """Long table (mechanism, rho, epsilon, delta, worst_label, worst_neighbour) for every rho.

    The no-noise curve does not depend on rho and is computed once (rho NaN). With ``keep_noise``
    also returns ``{(mechanism, rho): noise covariances}`` (rho None for ``no_noise``).
    """
    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    rows, noise = [], {}
    todo = [("no_noise", float("nan"))] if "no_noise" in mechanisms else []
    todo += [(m, float(r)) for r in rhos for m in mechanisms if m != "no_noise"]
    for name, rho in todo:
        mech = make_mechanism(name, model, rho, trace_rule, alg1)
        rel = model.with_noise(mech.noise_covs)
        sup = delta_sup_over_edges(rel.means, rel.covs, rel.edges, eps, tol=tol)
        for k, e in enumerate(eps):
            i, j = sup.worst_edge[k]
            rows.append(
                {
                    "mechanism": name,
                    "rho": rho,
                    "epsilon": float(e),
                    "delta": float(sup.delta[k]),
                    "worst_label": model.label(i),
                    "worst_neighbour": model.label(j),
                }
            )
        if keep_noise:
            noise[(name, None if name == "no_noise" else rho)] = mech.noise_covs
    df = pd.DataFrame(rows)
    return (df, noise) if keep_noise else df


def edges_within(model: ClassGaussianModel, groups, group) -> np.ndarray:
    """The directed edges of ``model`` whose two labels are in ``group`` (``groups[i]`` per label)."""
    groups = np.asarray(groups)
    if groups.shape != (model.n,):
        raise ValueError(f"groups must have one entry per label ({model.n}), got shape {groups.shape}")
    e = model.edges
    return e[(groups[e[:, 0]] == group) & (groups[e[:, 1]] == group)]
