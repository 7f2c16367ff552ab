"""Clustered synthetic households: the classdp paper's stand-in population.

Ramakrishna et al., *Differential Privacy for Class-based Data: A Practical Gaussian Mechanism*,
Sec. VI-B, state these facts about their (private) data: 100 households' demands at 15-minute
resolution, grouped into six clusters of households that "correspond to the same geographical
region which makes their electricity consumption pattern very geography specific" (and whose
loads are "highly correlated for households that are geographically proximate", Sec. V-B); the
model works on the logarithm of the load (eq. 61). Nothing in the paper pins *how* similar two
households of one region are; that is this generator's single free parameter.

Model
-----
Every component is a household of the embedded bottom-up model :mod:`dpgrid.data.synthetic`
(occupancy schedules, appliance bursts, lighting, baseload, weather-driven heating/cooling, same
default parameters), drawn with its own weather series (same climate, independent anomaly).
Region ``c`` has a *reference household* ``r_c`` (its shared weather, dwelling type and habits);
household ``h`` of region ``c(h)`` has its *own* base household ``d_h``. With ``m(t)`` the
population mean log-load profile (the mean of ``log d_h(t)`` over all households at each time:
the daily and weekly shape every household shares) and the within-cluster similarity
``lambda`` in [0, 1]::

    log p_h(t) = m(t) + sqrt(lambda) (log r_c(h)(t) - m(t)) + sqrt(1 - lambda) (log d_h(t) - m(t)).

Because ``r`` and ``d`` are independent draws of the same model, a household's deviation from the
population profile, ``log p_h(t) - m(t)``, is the sum of its region's common deviation and its
own, uncorrelated, with variances ``lambda V`` and ``(1 - lambda) V`` (V: the variance of a base
household's log-load deviation, over time and households). Hence, precisely:

* **lambda is the share of the variance of a household's log-load deviation (from the population
  profile) explained by its region's common component**, equivalently the correlation between
  the deviations of two households of the same region; households of different regions are
  uncorrelated;
* the mean squared log-load difference of two households is ``2 (1 - lambda) V`` within a region
  and ``2 V`` across regions (m cancels), so ``lambda = 1 - E_within / E_across``: this is how
  lambda is measured on data (:func:`within_cluster_similarity`);
* the population profile m(t) and the variance of the deviations do not depend on lambda;
  lambda = 0 gives the base households themselves, lambda = 1 makes the households of a region
  identical.

Regions are assigned round-robin (household i in region ``i mod n_clusters``): sizes differ by at
most one (17, 17, 17, 17, 16, 16 for the paper's counts). The meter table carries the region in a
column ``region`` (1-based); the classdp experiment does not read it (it clusters with k-means,
as the paper does), it is there for diagnostics.

Limits: the geometric interpolation of two households' loads shares the reference's bursts
(scaled in the log domain by sqrt(lambda)) with every member of its region; real neighbours share
weather and habits, not kettle events. The base model's forecastability (how well an ARMA model
predicts a household's log load 3 h ahead) is not a parameter here and is not the paper's
(workflow/papers/classdp/classdp.md, "Stand-in population").
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpgrid.data.meter import METER_COLUMNS, READING_COLUMNS, MeterData
from dpgrid.data.synthetic import SyntheticModel, residential_power
from dpgrid.data.synthetic_base import (
    Calendar,
    checked_window,
    darkness,
    meter_ids,
    outdoor_temperature,
)

__all__ = ["region_of", "synthesize_clustered_households", "within_cluster_similarity"]


def region_of(n_households: int, n_clusters: int) -> np.ndarray:
    """Region (0-based) of each household: round-robin, sizes differ by at most one."""
    if n_clusters < 1 or n_households < n_clusters:
        raise ValueError(
            f"need 1 <= n_clusters <= n_households, got n_clusters={n_clusters}, n_households={n_households}"
        )
    return np.arange(n_households) % n_clusters


def _base_log_loads(
    n: int, start: pd.Timestamp, days: int, step_minutes: int, rng: np.random.Generator, model: SyntheticModel
) -> np.ndarray:
    """log kW (n x samples) of ``n`` independent base households, each with its own weather series.

    The households of :func:`dpgrid.data.synthetic.residential_power` (one vectorised call); first the
    ``n`` weather series (:func:`dpgrid.data.synthetic_base.outdoor_temperature`), then the households.
    """
    cal = Calendar.of(start, days, step_minutes)
    temp = np.array(
        [outdoor_temperature(model.climate, cal.day_of_year, cal.grid_h + cal.step_h / 2, rng) for _ in range(n)]
    )
    dark = darkness(model.climate, cal.day_of_year, cal.grid_h, cal.step_h)
    return np.log(residential_power(n, cal, temp, dark, model.residential, rng))


def synthesize_clustered_households(
    n_households: int,
    n_clusters: int,
    similarity: float,
    start: str | pd.Timestamp,
    days: int,
    step_minutes: int,
    rng: np.random.Generator,
    *,
    model: SyntheticModel | None = None,
    source: str = "synthetic_clustered",
) -> MeterData:
    """``n_households`` households in ``n_clusters`` regions with within-cluster similarity ``similarity``.

    See the module docstring for the model and the exact meaning of ``similarity`` (lambda).
    All draws come from ``rng`` (the reference households of the regions, then the households'
    own components); the same generator state gives the identical frame.
    """
    if isinstance(similarity, bool) or not isinstance(similarity, (int, float)) or not 0.0 <= float(similarity) <= 1.0:
        raise ValueError(f"within-cluster similarity must be a number in [0, 1], got {similarity!r}")
    start = checked_window(start, days, step_minutes)
    region = region_of(int(n_households), int(n_clusters))
    model = model or SyntheticModel()
    lam = float(similarity)
    refs = _base_log_loads(int(n_clusters), start, days, step_minutes, rng, model)
    own = _base_log_loads(int(n_households), start, days, step_minutes, rng, model)
    m = own.mean(axis=0)  # population mean log-load profile m(t)
    log_p = m + math.sqrt(lam) * (refs[region] - m) + math.sqrt(1.0 - lam) * (own - m)
    kw = np.exp(log_p)
    if not (np.isfinite(kw).all() and (kw > 0).all()):
        raise AssertionError("clustered synthetic model produced a non-positive or non-finite load")
    ids = meter_ids("R", n_households, 4)
    n_steps = kw.shape[1]
    timestamps = pd.date_range(start, periods=n_steps, freq=pd.Timedelta(minutes=step_minutes))
    readings = pd.DataFrame(
        {
            "meter_id": np.repeat(np.asarray(ids, dtype=object), n_steps),
            "timestamp": np.tile(timestamps.to_numpy(dtype="datetime64[ns]"), n_households),
            "kw": kw.ravel(),
        }
    )[READING_COLUMNS]
    meters = pd.DataFrame({"meter_id": ids, "customer_class": "residential", "region": region + 1})
    return MeterData(readings, meters[METER_COLUMNS + ["region"]], source)


def within_cluster_similarity(log_load: np.ndarray, region: np.ndarray) -> dict:
    """Measure lambda on data: ``1 - E_within / E_across`` (module docstring).

    ``log_load`` is (households, samples); ``region`` the region of each household. E_within and
    E_across are the mean squared log-load differences over all pairs of households of the same
    region and of different regions (all samples). Returns the estimate and both means.
    """
    y = np.asarray(log_load, dtype=float)
    region = np.asarray(region)
    n = y.shape[0]
    if region.shape != (n,):
        raise ValueError(f"region must have one entry per household ({n}), got shape {region.shape}")
    # sum over pairs of ||y_i - y_j||^2 from the Gram matrix (all pairs at once)
    sq = np.sum(y * y, axis=1)
    gram = y @ y.T
    d2 = (sq[:, None] + sq[None, :] - 2.0 * gram) / y.shape[1]
    same = region[:, None] == region[None, :]
    off = ~np.eye(n, dtype=bool)
    within = d2[same & off]
    across = d2[~same]
    if within.size == 0 or across.size == 0:
        raise ValueError("need at least one pair within a region and one pair across regions")
    e_w, e_a = float(within.mean()), float(across.mean())
    return {"similarity": 1.0 - e_w / e_a, "mean_sq_diff_within": e_w, "mean_sq_diff_across": e_a}


def load_source(spec: dict, rng, name: str):
    """The stand-in's meter data for the experiment entry ``spec`` (``data.experiments.<name>``; the
    registry of :mod:`dpgrid.data.sources` calls this for source ``synthetic_clustered``)."""
    from dpgrid.data.meter import spec_value, spec_window

    start, days, step = spec_window(spec, name)
    return synthesize_clustered_households(
        int(spec_value(spec, "n_residential", name)),
        int(spec_value(spec, "n_clusters", name)),
        spec_value(spec, "within_cluster_similarity", name),
        start,
        days,
        step,
        rng,
        source=f"synthetic_clustered:{name}",
    )
