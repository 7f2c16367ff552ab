"""A paper-matched stand-in for the dpkmeans paper's meter data: 1409 California homes + 7 businesses, hourly.

Ravi, Scaglione et al., *Differentially Private K-means Clustering Applied to Meter Data Analysis and
Synthesis* (IEEE TSG 2022), Sec. V-B, cluster the daily profiles of "P = 1416 houses ... (with one
hour-resolution) that belong to 12 distribution circuits across California".  The data are
proprietary (Kevala).  This module builds a population that has every property the paper states about
its data, so that the paper's other numbers become predictions.

What the paper states about its data, and how each fact is used
----------------------------------------------------------------
* 1416 meters, hourly, daily profiles with d = 25 (midnight to midnight): ``n_residential +
  n_commercial`` meters, ``step_minutes = 60`` (finer steps split each hour, keeping its mean), profiles by
  :func:`dpgrid.data.profiles.daily_profiles` as for every source;
* 7 outliers that are "commercial customers on closer inspection" (P = 1409 after removing them):
  ``n_commercial`` business customers (default 7);
* K = 6 clusters of the residential profiles, two of which ("clusters 2 and 4") hold "significantly"
  fewer houses than d = 25 (Sec. V-B, Fig. 10): six behavioural archetypes, four large ones (shares of
  the remaining homes) and two small ones of fixed sizes ``small_clusters`` (default 8 and 12: about a
  third and a half of d = 25; not stated numerically, so a documented assumption);
* "the daily load profiles when divided into clusters exhibit an excellent fit with a multivariate
  log-normal distribution" (Sec. IV), log-normal per-hour marginals with the lowest BIC (Fig. 10):
  within an archetype a home's mean profile is ``level * shape(h) * exp(g(h))`` with a log-normal level
  and a smooth Gaussian log-deviation g, i.e. exactly multivariate log-normal across homes;
* California: residential loads are scaled to the state's average consumption (EIA-861, 2019: 571 kWh
  per month, i.e. 0.78 kW mean demand); business customers to the state's average commercial
  consumption (EIA-861, 1999: 4379 kWh per month, 6.0 kW), with the business-hours shape of
  :func:`dpgrid.data.synthetic.commercial_power` under a mild Californian climate.

The free property
-----------------
No stated fact pins how far the two small clusters sit from the rest of the population: their level
relative to the population mean, ``separation`` (the small archetypes' mean demand is
``separation x 0.78 kW``).  It sets the centroid sensitivity of the residential clustering (the small
clusters' members move their centroids most when removed), so the dpkmeans experiment calibrates it on
the one printed number that every figure after Fig. 7 is built on: Delta_c = 2.13 without outliers
(:func:`calibrate_separation`; workflow/papers/dpkmeans/dpkmeans.md, "Stand-in data").  Everything else above is a
stated fact or a public prior, fixed before any comparison.

Model (per home p of archetype k; h = hour of day, t = day)
-----------------------------------------------------------
    mean profile   m_p(h) = L_k * s_k(h) * exp(sigma_L z_p - sigma_L^2/2) * exp(g_p(h) - sigma_g^2/2)
    reading        x_p(t, h) = m_p(h) * w_t * exp(sigma_d e_pth - sigma_d^2/2)

``s_k`` (mean 1 over the day) is a sum of circular Gaussian bumps on a base; ``g_p`` is a stationary
Gaussian process on the 24-hour circle (squared-exponential kernel, standard deviation sigma_g,
length ``shape_length_h``); ``w_t`` a common day factor (AR(1) in the log, mean one: weather and
calendar); ``e`` independent standard normal (hour-to-hour appliance use).  All factors are mean one,
so the expected reading is ``m_p(h)``.  Homes are assigned to archetypes in a random order (meter ids
say nothing about the archetype).  Deterministic: every draw comes from the ``rng`` passed in, in a
fixed order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from dpgrid.data.meter import METER_COLUMNS, READING_COLUMNS, MeterData
from dpgrid.data.synthetic import CommercialModel, commercial_power
from dpgrid.data.synthetic_base import Calendar, Climate, StandinError, meter_ids, outdoor_temperature

HOURS_PER_DAY = 24

#: EIA-861 (2019), California residential: 571 kWh per month -> mean demand in kW.
CA_RESIDENTIAL_MEAN_KW = 571.0 * 12 / 8760

#: A mild Californian climate (Central Valley / coastal mix): annual mean 16 C, +-7 K seasons, 14 K daily range.
CALIFORNIA = Climate(
    mean_c=16.0,
    annual_amplitude_c=7.0,
    warmest_day_of_year=205,
    diurnal_amplitude_c=7.0,
    warmest_hour=15.5,
    anomaly_sd_c=2.0,
    anomaly_ar=0.7,
    day_length_amplitude_h=2.4,
    solar_noon_h=12.9,
)


@dataclass(frozen=True)
class Archetype:
    """A behavioural class: daily shape ``base + sum of circular Gaussian bumps`` (normalised to mean 1).

    ``level`` is the class's mean demand relative to the Californian residential mean
    (:data:`CA_RESIDENTIAL_MEAN_KW`); for the small archetypes it is multiplied by ``separation``.
    ``bumps`` are (hour of the peak, amplitude relative to the base, width in hours).
    """

    name: str
    level: float
    base: float
    bumps: tuple[tuple[float, float, float], ...]

    def shape(self) -> np.ndarray:
        """The 24 hourly values (interval means of the hour, evaluated at mid-hour), mean 1."""
        h = np.arange(HOURS_PER_DAY) + 0.5
        s = np.full(HOURS_PER_DAY, self.base)
        for peak, amp, width in self.bumps:
            dist = (h - peak + 12.0) % 24.0 - 12.0  # circular distance to the peak
            s = s + amp * np.exp(-0.5 * (dist / width) ** 2)
        return s / s.mean()


#: Four large archetypes (shares of the homes outside the small clusters).  California-like residential
#: shapes (evening-peaking homes dominate; low users; homes occupied in the daytime; late households).
#: Levels are such that the share-weighted mean is 1.0 (the EIA mean).
LARGE_ARCHETYPES = (
    (0.38, Archetype("evening peak", 1.00, 0.55, ((7.5, 0.35, 1.2), (19.5, 1.10, 2.3)))),
    (0.27, Archetype("low use", 0.54, 0.75, ((8.0, 0.20, 1.5), (20.0, 0.55, 2.5)))),
    (0.22, Archetype("daytime occupied", 1.47, 0.50, ((13.5, 0.60, 3.0), (17.0, 1.00, 2.5), (20.5, 0.40, 2.0)))),
    (0.13, Archetype("late evening", 1.15, 0.65, ((10.5, 0.30, 2.0), (22.5, 1.00, 2.2)))),
)


@dataclass(frozen=True)
class Appliance:
    """The large load that sets a small archetype apart: ``power_kw`` (nominal) times a duty profile.

    ``duty`` gives, for each hour of the day, the mean fraction of the hour the appliance runs (the
    average over days of a schedule whose length varies from day to day).  A home's power is the
    nominal power times ``separation`` times a log-normal factor (spread ``power_log_sd``).
    """

    name: str
    power_kw: float
    duty: tuple[float, ...]
    power_log_sd: float = 0.35

    def profile(self) -> np.ndarray:
        d = np.asarray(self.duty, dtype=float)
        if d.shape != (HOURS_PER_DAY,) or (d < 0).any() or (d > 1).any():
            raise StandinError(f"appliance {self.name!r}: duty needs 24 fractions in [0, 1], got {self.duty}")
        return self.power_kw * d


#: The two small archetypes: ordinary homes (drawn like the large archetypes) plus one large appliance.
#: Overnight EV charging on a time-of-use timer from midnight (a 6.6 kW Level-2 charger; nights of ~2 h
#: on average) and electric resistance space heating in winter (4 kW of wall heaters: a morning warm-up
#: from 4:00, the evening, a night setback).
SMALL_ARCHETYPES = (
    Appliance("overnight EV charging", 6.6, (0.95, 0.8, 0.5, 0.25, 0.1, 0.03) + (0.0,) * 18),
    Appliance(
        "electric resistance heating",
        4.0,
        (0.3, 0.3, 0.3, 0.3, 0.6, 0.9, 0.9, 0.9, 0.7, 0.4) + (0.1,) * 7 + (0.5, 0.5, 0.5, 0.5, 0.5, 0.3, 0.3),
    ),
)


@dataclass(frozen=True)
class StandinModel:
    """Parameters of the stand-in population (public priors; see module doc)."""

    large: tuple = LARGE_ARCHETYPES
    small: tuple = SMALL_ARCHETYPES
    residential_mean_kw: float = CA_RESIDENTIAL_MEAN_KW
    house_log_sd: float = 0.3  #: sigma_L: spread of home levels within an archetype (CV 0.31)
    shape_log_sd: float = 0.3  #: sigma_g: a home's smooth deviation from its archetype's shape
    shape_length_h: float = 2.0  #: correlation length of that deviation (hours)
    day_log_sd: float = 0.45  #: sigma_d: hour-to-hour variability of a home's readings
    day_factor_log_sd: float = 0.08  #: common day factor (weather, calendar), stationary s.d. of its log
    day_factor_ar: float = 0.7
    sub_hour_log_sd: float = 0.5  #: spread of the intervals within an hour (steps finer than 60 minutes)
    climate: Climate = CALIFORNIA
    commercial: CommercialModel = field(default_factory=CommercialModel)


def archetype_sizes(n_residential: int, small_clusters, model: StandinModel | None = None) -> np.ndarray:
    """Homes per archetype: the large ones share ``n_residential - sum(small)`` by largest remainders,
    then the small ones (fixed sizes).  Order: large archetypes, then small ones."""
    model = model or StandinModel()
    small = [int(s) for s in small_clusters]
    if len(small) != len(model.small):
        raise StandinError(f"small_clusters needs {len(model.small)} sizes (one per small archetype), got {small}")
    if any(s < 2 for s in small):
        raise StandinError(f"every small cluster needs at least 2 homes, got {small}")
    n_large = n_residential - sum(small)
    shares = np.array([s for s, _ in model.large], dtype=float)
    if n_large < 2 * len(shares):
        raise StandinError(
            f"n_residential = {n_residential} leaves {n_large} homes for the {len(shares)} large "
            f"archetypes next to the small clusters {small}; need at least {2 * len(shares)}"
        )
    raw = n_large * shares / shares.sum()
    n = np.floor(raw).astype(int)
    n[np.argsort(-(raw - n), kind="stable")[: n_large - n.sum()]] += 1
    return np.concatenate([n, small])


def _circular_gp(n: int, sd: float, length_h: float, rng: np.random.Generator) -> np.ndarray:
    """``n`` draws of a zero-mean stationary Gaussian process on the 24 hourly points of the day circle."""
    h = np.arange(HOURS_PER_DAY)
    dist = np.abs(h[:, None] - h[None, :])
    dist = np.minimum(dist, HOURS_PER_DAY - dist)
    cov = sd * sd * np.exp(-0.5 * (dist / length_h) ** 2)
    return rng.multivariate_normal(np.zeros(HOURS_PER_DAY), cov, size=n, method="eigh")


def standin_profiles(
    n_residential: int, small_clusters, separation: float, rng: np.random.Generator, model: StandinModel | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The homes' mean daily profiles m_p(h) (n_residential x 24, kW) and their archetype (0..5; the
    large archetypes first, then the small ones), in meter order (a random assignment)."""
    model = model or StandinModel()
    if not (math.isfinite(separation) and separation > 0):
        raise StandinError(f"separation must be a positive number, got {separation!r}")
    sizes = archetype_sizes(n_residential, small_clusters, model)
    n_large = len(model.large)
    arche = rng.permutation(np.repeat(np.arange(n_large + len(model.small)), sizes))
    # every home has an ordinary base load; a small archetype's base is drawn from the large archetypes' mix
    shares = np.array([s for s, _ in model.large], dtype=float)
    base = np.where(arche < n_large, arche, rng.choice(n_large, size=n_residential, p=shares / shares.sum()))
    levels = np.array([a.level for _, a in model.large]) * model.residential_mean_kw
    shapes = np.vstack([a.shape() for _, a in model.large])
    sl, sg = model.house_log_sd, model.shape_log_sd
    level = levels[base] * np.exp(sl * rng.standard_normal(n_residential) - 0.5 * sl * sl)
    g = _circular_gp(n_residential, sg, model.shape_length_h, rng)
    prof = level[:, None] * shapes[base] * np.exp(g - 0.5 * sg * sg)
    for j, app in enumerate(model.small):
        idx = np.flatnonzero(arche == n_large + j)
        sd = app.power_log_sd
        power = separation * np.exp(sd * rng.standard_normal(len(idx)) - 0.5 * sd * sd)
        prof[idx] += power[:, None] * app.profile()[None, :]
    return prof, arche


def _day_factor(days: int, model: StandinModel, rng: np.random.Generator) -> np.ndarray:
    """Common mean-one day factor w_t (log AR(1), stationary start)."""
    phi, sd = model.day_factor_ar, model.day_factor_log_sd
    a = np.empty(days)
    a[0] = rng.normal(0.0, sd)
    shocks = rng.normal(0.0, sd * math.sqrt(1.0 - phi * phi), days)
    for t in range(1, days):
        a[t] = phi * a[t - 1] + shocks[t]
    return np.exp(a - 0.5 * sd * sd)


def synthesize_dpkmeans_standin(
    n_residential: int,
    n_commercial: int,
    small_clusters,
    separation: float,
    start,
    days: int,
    step_minutes: int,
    rng: np.random.Generator,
    *,
    model: StandinModel | None = None,
    source: str = "dpkmeans_standin",
) -> MeterData:
    """Readings of the stand-in population (see module doc) as :class:`MeterData`.

    Residential meters ``R0001`` ..., commercial ``C001`` ... (as the generic synthetic source).
    ``start`` must be a midnight.  The model is hourly (the paper's data are); ``step_minutes`` may divide
    60: each hour is then split into intervals by a mean-one log-normal factor (s.d. ``sub_hour_log_sd``)
    normalised so that every hourly mean, hence every daily profile, is the hourly model's (drawn after
    all hourly draws: the hourly data do not depend on the step).
    """
    model = model or StandinModel()
    if step_minutes < 1 or 60 % step_minutes:
        raise StandinError(f"step_minutes must divide 60 (the dpkmeans paper's data are hourly), got {step_minutes}")
    if days < 2:
        raise StandinError(f"days must be >= 2 (a 25-point daily profile needs the next midnight), got {days}")
    if n_residential < 1 or n_commercial < 0:
        raise StandinError(f"need n_residential >= 1 and n_commercial >= 0, got {n_residential}, {n_commercial}")
    start = pd.Timestamp(start)
    if start != start.normalize():
        raise StandinError(f"start must be a midnight, got {start}")

    prof, _ = standin_profiles(n_residential, small_clusters, separation, rng, model)
    w = _day_factor(days, model, rng)
    sd = model.day_log_sd
    noise = np.exp(sd * rng.standard_normal((n_residential, days, HOURS_PER_DAY)) - 0.5 * sd * sd)
    kw = (prof[:, None, :] * w[None, :, None] * noise).reshape(n_residential, days * HOURS_PER_DAY)
    ids = meter_ids("R", n_residential, 4)
    classes = ["residential"] * n_residential
    if n_commercial:
        cal = Calendar.of(start, days, 60)  # the hourly model
        temp = outdoor_temperature(model.climate, cal.day_of_year, cal.grid_h + 0.5, rng)
        kw = np.vstack([kw, commercial_power(n_commercial, cal, temp, model.commercial, rng)])
        ids += meter_ids("C", n_commercial, 3)
        classes += ["commercial"] * n_commercial
    spi = 60 // step_minutes
    if spi > 1:
        sd = model.sub_hour_log_sd
        f = np.exp(sd * rng.standard_normal(kw.shape + (spi,)))
        kw = (kw[..., None] * f / f.mean(-1, keepdims=True)).reshape(kw.shape[0], -1)
    if not (np.isfinite(kw).all() and (kw > 0).all()):  # guaranteed by construction; checked anyway
        raise AssertionError("stand-in model produced a non-positive or non-finite load")
    n_meters, n_steps = kw.shape
    timestamps = pd.date_range(start, periods=n_steps, freq=pd.Timedelta(minutes=step_minutes))
    readings = pd.DataFrame(
        {
            "meter_id": np.repeat(np.asarray(ids, dtype=object), n_steps),
            "timestamp": np.tile(timestamps.to_numpy(dtype="datetime64[ns]"), n_meters),
            "kw": kw.ravel(),
        }
    )[READING_COLUMNS]
    meters = pd.DataFrame({"meter_id": ids, "customer_class": classes})[METER_COLUMNS]
    return MeterData(readings, meters, source)


def load_source(spec: dict, rng, name: str):
    """The stand-in's meter data for the experiment entry ``spec`` (``data.experiments.<name>``; the
    registry of :mod:`dpgrid.data.sources` calls this for source ``dpkmeans_standin``)."""
    from dpgrid.data.meter import spec_value, spec_window

    start, days, step = spec_window(spec, name)
    return synthesize_dpkmeans_standin(
        int(spec_value(spec, "n_residential", name)),
        int(spec_value(spec, "n_commercial", name)),
        list(spec_value(spec, "small_clusters", name)),
        float(spec_value(spec, "separation", name)),
        start,
        days,
        step,
        rng,
        source=f"dpkmeans_standin:{name}",
    )
