"""Household ARMA forecasts as a class-based Gaussian query (classdp, Secs. V-B and VI-B, Algorithm 2).

Ramakrishna, Scaglione, Wu, Ravi, Peisert, *Differential Privacy for Class-based Data: A Practical
Gaussian Mechanism*. For every household (class label X):

1. ``x[k] = log p[k] - mu[k]`` (eq. 61), mu the seasonal (weekly) mean of the log load over all
   samples before the forecast origin;
2. an ARMA(m, n) model (eq. 59) fitted on the last ``train_samples`` of x;
3. the forecast distribution ``N(mu_X, Sigma_X)`` of eq. (57) for the next ``horizon`` samples,
   conditioned on the last ``conditioning_samples`` of x, shifted by the seasonal mean
   (the query is ``x_hat + mu``; the released load is its exponential, eq. 62);
4. k-means on the households' weekly log profiles; neighbours = households of the same cluster.

These are the computations of the pipeline's forecast jobs (``classdp_forecast_arma`` and
``classdp_forecast_model``) as plain functions on arrays, so that sweeps (e.g. over the
within-cluster similarity of :mod:`dpgrid.papers.classdp.standin`) build the same model
in one process. ``tests/papers/classdp/test_household_forecast.py`` checks that they give the jobs' model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dpgrid.mechanisms.gaussian_class import ClassGaussianModel, complete_edges_within_groups
from dpgrid.models.arma import ArmaFit, forecast_distribution, seasonal_log_mean
from dpgrid.models.arma_fit import fit_arma

__all__ = [
    "ForecastSettings",
    "HouseholdForecast",
    "ForecastModel",
    "HouseholdForecastError",
    "log_load",
    "forecast_origin",
    "seasonal_residual",
    "fit_household",
    "household_forecasts",
    "cluster_households",
    "build_forecast_model",
]


class HouseholdForecastError(ValueError):
    """Data or settings that cannot give the forecast model."""


#: keyword arguments of :func:`dpgrid.models.arma_fit.fit_arma` taken from ``classdp.forecast.arma``
ARMA_FIT_KEYS = (
    "maxiter",
    "retry_maxiter",
    "nonconverged_rule",
    "method",
    "optimizer",
    "retry_optimizer",
    "start",
    "pacf_bound",
    "root_margin",
    "tol",
)


@dataclass(frozen=True)
class ForecastSettings:
    """The ``classdp.forecast`` settings the forecast model depends on (workflow/papers/classdp/classdp.md).

    ``arma`` holds the keyword arguments of :func:`dpgrid.models.arma_fit.fit_arma` (:data:`ARMA_FIT_KEYS`,
    plus ``order`` and ``fallback_order``), as the config section ``classdp.forecast.arma`` gives them.
    """

    log_floor_kw: float = 0.01
    seasonal_period_days: int = 7
    origin_hour: float = 18.0
    train_samples: int = 1440
    conditioning_samples: int = 1440
    horizon: int = 12
    n_clusters: int = 6
    kmeans_n_init: int = 10
    arma: tuple = (("order", (6, 5)), ("fallback_order", (2, 1)))

    @classmethod
    def from_config(cls, fc: dict) -> ForecastSettings:
        """From the config section ``classdp.forecast`` (keys as in config/config.yaml; ``n_clusters``,
        ``kmeans_n_init`` and ARMA keys that are absent keep their defaults)."""
        a = fc.get("arma", {})
        arma = {"order": tuple(a.get("order", (6, 5))), "fallback_order": tuple(a.get("fallback_order", (2, 1)))}
        arma.update({k: tuple(a[k]) if isinstance(a[k], list) else a[k] for k in ARMA_FIT_KEYS if k in a})
        return cls(
            float(fc["log_floor_kw"]),
            int(fc["seasonal_period_days"]),
            float(fc["origin_hour"]),
            int(fc["train_samples"]),
            int(fc["conditioning_samples"]),
            int(fc["horizon"]),
            int(fc.get("n_clusters", 6)),
            int(fc.get("kmeans_n_init", 10)),
            tuple(sorted(arma.items())),
        )

    @property
    def arma_kwargs(self) -> dict:
        return dict(self.arma)


@dataclass
class HouseholdForecast:
    """One household's fit and its forecast distribution of the log load (eq. 57 plus seasonal mean)."""

    fit: ArmaFit
    mean_log: np.ndarray  # (horizon,) x_hat + mu: the query mu_X (NaN if the fit was excluded)
    cov: np.ndarray  # (horizon, horizon) Sigma_X


@dataclass
class ForecastModel:
    """The class model of the forecasts plus what the release and the figures need."""

    model: ClassGaussianModel  # usable households only
    cluster: np.ndarray  # cluster of every usable household
    cluster_all: np.ndarray  # cluster of every household (column order)
    usable: np.ndarray  # bool per household
    fits: list  # ArmaFit per household (column order)
    origin: int
    truth_kw: np.ndarray  # (usable, horizon) true load after the origin
    n_floored: int
    extra: dict = field(default_factory=dict)


def log_load(kw: np.ndarray, floor_kw: float) -> tuple[np.ndarray, int]:
    """``log(max(p, floor))`` (kW) and the number of floored readings."""
    kw = np.asarray(kw, dtype=float)
    return np.log(np.maximum(kw, floor_kw)), int(np.sum(kw < floor_kw))


def forecast_origin(n: int, spd: int, s: ForecastSettings, source: str = "<data>") -> int:
    """Sample index of the forecast origin: ``origin_hour`` of the last day of data."""
    days = n // spd
    o = (days - 1) * spd + int(round(s.origin_hour * spd / 24))
    period = s.seasonal_period_days * spd
    need = max(s.train_samples, period)
    if o + s.horizon > n:
        raise HouseholdForecastError(
            f"{source}: forecast origin at sample {o} + horizon {s.horizon} exceeds the {n} "
            f"samples (config classdp.forecast.origin_hour = {s.origin_hour})"
        )
    if o < need:
        raise HouseholdForecastError(
            f"{source}: only {o} samples before the forecast origin; classdp.forecast needs "
            f"train_samples = {s.train_samples} and one seasonal period ({period})"
        )
    return o


def seasonal_residual(log_p: np.ndarray, origin: int, period: int) -> tuple[np.ndarray, np.ndarray]:
    """Eq. (61): the seasonal mean ``mu`` (period, meters) of log p before the origin and the residual
    ``x = log p - mu`` (samples before the origin, meters). Sample 0 is season position 0."""
    mu = seasonal_log_mean(log_p[:origin], period)
    pos = np.arange(origin) % period
    return log_p[:origin] - mu[pos], mu


def fit_household(y: np.ndarray, s: ForecastSettings, name: str = "series") -> ArmaFit:
    """:func:`dpgrid.models.arma_fit.fit_arma` of one household's residual with the settings ``s``
    (the call of the pipeline's ``classdp_forecast_arma`` job)."""
    kw = s.arma_kwargs
    order = tuple(kw.pop("order"))
    return fit_arma(y, order, name=name, fallback_order=tuple(kw.pop("fallback_order")), **kw)


def household_forecasts(
    log_p: np.ndarray, spd: int, s: ForecastSettings, columns=None, names=None, source: str = "<data>"
) -> list[HouseholdForecast]:
    """Steps 1-3 for the households ``columns`` of ``log_p`` (samples x meters; default all)."""
    n, m = log_p.shape
    o = forecast_origin(n, spd, s, source)
    period = s.seasonal_period_days * spd
    x, mu = seasonal_residual(log_p, o, period)
    pos_future = np.arange(o, o + s.horizon) % period
    H, K, T = s.horizon, s.conditioning_samples, s.train_samples
    out = []
    for j in range(m) if columns is None else columns:
        fit = fit_household(x[o - T : o, j], s, str(names[j]) if names is not None else f"household {j}")
        if fit.usable:
            mean_x, cov_x = forecast_distribution(fit, x[o - K : o, j], H)
        else:
            mean_x, cov_x = np.full(H, np.nan), np.full((H, H), np.nan)
        out.append(HouseholdForecast(fit, mean_x + mu[pos_future, j], cov_x))
    return out


def cluster_households(
    log_p: np.ndarray, origin: int, period: int, n_clusters: int, n_init: int, random_state: int
) -> np.ndarray:
    """k-means (scikit-learn) on the households' seasonal log profiles (the mu of eq. 61)."""
    from sklearn.cluster import KMeans

    m = log_p.shape[1]
    if n_clusters > m:
        raise HouseholdForecastError(f"config classdp.forecast.n_clusters = {n_clusters} exceeds the {m} households")
    features = seasonal_log_mean(log_p[:origin], period).T
    km = KMeans(n_clusters=int(n_clusters), n_init=int(n_init), random_state=int(random_state)).fit(features)
    return km.labels_


def build_forecast_model(
    kw: np.ndarray,
    spd: int,
    s: ForecastSettings,
    rng: np.random.Generator,
    names=None,
    forecasts: list[HouseholdForecast] | None = None,
    source: str = "<data>",
) -> ForecastModel:
    """Algorithm 2 step 1 from a (samples x meters) kW matrix: forecasts, clusters, class model.

    ``rng`` seeds k-means exactly as the pipeline's ``classdp_forecast_model`` job does (one
    ``integers(2**31 - 1)`` draw). ``forecasts`` may be passed when already computed.
    """
    log_p, n_floored = log_load(kw, s.log_floor_kw)
    n, m = log_p.shape
    o = forecast_origin(n, spd, s, source)
    period = s.seasonal_period_days * spd
    if forecasts is None:
        forecasts = household_forecasts(log_p, spd, s, names=names, source=source)
    if len(forecasts) != m:
        raise HouseholdForecastError(f"{source}: {len(forecasts)} forecasts for {m} households")
    labels = cluster_households(log_p, o, period, s.n_clusters, s.kmeans_n_init, int(rng.integers(2**31 - 1)))
    usable = np.array([f.fit.usable for f in forecasts])
    keep = np.flatnonzero(usable)
    names = [str(v) for v in (names if names is not None else range(m))]
    model = ClassGaussianModel(
        np.array([forecasts[j].mean_log for j in keep]),
        np.array([forecasts[j].cov for j in keep]),
        complete_edges_within_groups(labels[keep]),
        [names[j] for j in keep],
    )
    return ForecastModel(
        model,
        labels[keep],
        labels,
        usable,
        [f.fit for f in forecasts],
        o,
        np.asarray(kw, dtype=float)[o : o + s.horizon, keep].T,
        n_floored,
    )
