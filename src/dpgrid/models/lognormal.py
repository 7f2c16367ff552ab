"""Shifted log-normal load model and heavy-tailed marginal fits (dpkmeans paper, Sec. IV, Fig. 10).

Profiles x (kW) of a cluster are modelled as x = exp(y) - alpha with y ~ N(mu, Sigma) (the
multivariate log-normal of Algorithm 2, shift alpha keeps the log argument positive).  Marginals
(one cluster, one hour) are compared by BIC = k ln n - 2 ln L over scipy.stats maximum-likelihood
fits of log-normal and other heavy-tailed candidates, location fixed at -alpha for the shifted
log-normal and at 0 otherwise (loads are positive).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats


def log_transform(X: np.ndarray, alpha: float) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if (X + alpha <= 0).any():
        raise ValueError(f"log(x + alpha) undefined: min load {X.min():.4g} <= -alpha = {-alpha:.4g}")
    return np.log(X + alpha)


def sample_shifted_lognormal(
    mu: np.ndarray, cov: np.ndarray, alpha: float, n: int, rng: np.random.Generator
) -> np.ndarray:
    """n profiles exp(y) - alpha, y ~ N(mu, cov) (Algorithm 2, lines 7-8)."""
    y = rng.multivariate_normal(mu, cov, size=n, method="eigh")
    return np.exp(y) - alpha


#: candidates: name -> (scipy distribution, fixed location rule)
CANDIDATES = {
    "lognorm": stats.lognorm,
    "gamma": stats.gamma,
    "weibull_min": stats.weibull_min,
    "fisk": stats.fisk,  # log-logistic
    "invgauss": stats.invgauss,
}


def bic_table(
    x: np.ndarray, candidates=("lognorm", "gamma", "weibull_min", "fisk", "invgauss"), floc: float = 0.0
) -> pd.DataFrame:
    """BIC of each candidate fitted by MLE to the sample ``x`` (location fixed at ``floc``)."""
    x = np.asarray(x, dtype=float)
    if (x <= floc).any():
        raise ValueError(f"all samples must exceed the fixed location {floc}; min is {x.min():.4g}")
    rows = []
    n = len(x)
    for name in candidates:
        dist = CANDIDATES[name]
        params = dist.fit(x, floc=floc)
        ll = float(dist.logpdf(x, *params).sum())
        k = len(params) - 1  # loc fixed
        rows.append(
            {"distribution": name, "loglik": ll, "n_params": k, "bic": k * np.log(n) - 2 * ll, "params": params}
        )
    return pd.DataFrame(rows)
