"""The pieces every synthetic load population shares: the sampling calendar, exact interval integration,
the climate, meter ids and the stand-ins' parameter error.

Used by the offline household/business model (:mod:`dpgrid.data.synthetic`, whose docstring describes the
model) and by the papers' stand-in populations (``dpgrid.papers.<paper>.standin``):

* :class:`Calendar`: a window's sampling grid (days, samples per day, interval starts, weekday, day of year);
* exact interval integration: the fraction of each metering interval covered by an interval of the day
  (:func:`_overlap`; :func:`interval_fraction` for intervals that run past midnight) and the average power
  of rectangular appliance events integrated exactly per interval with cumulative ramp functions
  (:func:`event_energy`);
* the stylised mid-latitude climate (:class:`Climate`): outdoor temperature as annual + diurnal cosines + an
  AR(1) daily anomaly, one series shared by all customers (:func:`outdoor_temperature`), and the darkness
  between sunset and sunrise from the day of year (:func:`darkness`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

MINUTES_PER_DAY = 1440


class StandinError(ValueError):
    """Parameters of a synthetic or paper-matched stand-in population that cannot build it (or cannot give the
    statistics it is stated to have); the message names the parameter and its value."""


@dataclass(frozen=True)
class Climate:
    """Stylised outdoor temperature (deg C): annual + diurnal cosines + AR(1) daily anomaly."""

    mean_c: float = 11.0  #: annual mean temperature
    annual_amplitude_c: float = 10.0  #: half the summer-winter difference of daily means
    warmest_day_of_year: int = 200  #: about 19 July
    diurnal_amplitude_c: float = 4.5  #: half the day-night difference
    warmest_hour: float = 15.0
    anomaly_sd_c: float = 3.0  #: stationary s.d. of the daily weather anomaly
    anomaly_ar: float = 0.7  #: day-to-day autocorrelation of the anomaly
    day_length_amplitude_h: float = 3.5  #: +- hours of daylight around 12 h (about 45 deg N)
    solar_noon_h: float = 12.5


def checked_window(start, days: int, step_minutes: int, error: type[ValueError] = ValueError) -> pd.Timestamp:
    """``start`` as a Timestamp, after checking the window of a generated series: ``days`` >= 1, ``step_minutes``
    dividing a day, ``start`` a midnight; ``error`` (ValueError, or :class:`StandinError` for a stand-in) names the
    parameter and its value."""
    if days < 1:
        raise error(f"days must be >= 1, got {days}")
    if step_minutes < 1 or MINUTES_PER_DAY % step_minutes:
        raise error(f"step_minutes must divide 1440, got {step_minutes}")
    start = pd.Timestamp(start)
    if start != start.normalize():
        raise error(f"start must be a midnight, got {start}")
    return start


def meter_ids(prefix: str, n: int, width: int) -> list[str]:
    """``R0001``, ``R0002``, ... (the width grows if ``n`` needs more digits)."""
    width = max(width, len(str(n)))
    return [f"{prefix}{i:0{width}d}" for i in range(1, n + 1)]


@dataclass(frozen=True)
class Calendar:
    """The sampling grid of a window, shared by every meter: days, samples per day, step (hours), interval
    starts (hours of day), weekday and day of year of each day."""

    days: int
    spd: int
    step_h: float
    grid_h: np.ndarray
    weekday: np.ndarray
    day_of_year: np.ndarray

    @classmethod
    def of(cls, start: str | pd.Timestamp, days: int, step_minutes: int) -> Calendar:
        spd = MINUTES_PER_DAY // step_minutes
        step_h = step_minutes / 60.0
        dates = pd.date_range(start, periods=days, freq="D")
        return cls(
            days,
            spd,
            step_h,
            np.arange(spd) * step_h,  # interval starts, hours of day
            dates.weekday.to_numpy(),
            dates.dayofyear.to_numpy().astype(float),
        )


def _overlap(start_h: np.ndarray, end_h: np.ndarray, grid_h: np.ndarray, step_h: float) -> np.ndarray:
    """Fraction of each interval [g, g + step) covered by [start, end) (broadcast on the last axis)."""
    lo = np.maximum(start_h[..., None], grid_h)
    hi = np.minimum(end_h[..., None], grid_h + step_h)
    return np.clip(hi - lo, 0.0, step_h) / step_h


def interval_fraction(start_h, end_h, grid_h, step_h) -> np.ndarray:
    """Like :func:`_overlap` for intervals of day ``d`` that may run past midnight (into day d+1).

    ``start_h``/``end_h`` have shape (..., days); the result (..., days, steps_per_day) includes
    the part of day d-1's interval that falls after its midnight.
    """
    frac = _overlap(start_h, end_h, grid_h, step_h)
    spill = _overlap(start_h - 24.0, end_h - 24.0, grid_h, step_h)
    frac[..., 1:, :] += spill[..., :-1, :]
    return frac


def outdoor_temperature(
    climate: Climate, day_of_year: np.ndarray, hours: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Outdoor temperature (days x steps) at interval midpoints; one weather series for all."""
    from scipy.signal import lfilter

    n_days = len(day_of_year)
    phi = climate.anomaly_ar
    shocks = rng.normal(0.0, climate.anomaly_sd_c * np.sqrt(1.0 - phi**2), n_days)
    shocks[0] = rng.normal(0.0, climate.anomaly_sd_c)  # start in the stationary distribution
    anomaly = lfilter([1.0], [1.0, -phi], shocks)
    # interpolate the daily anomaly (placed at noon) to every step so that it varies smoothly
    t_abs = np.arange(n_days)[:, None] + hours[None, :] / 24.0
    anomaly_t = np.interp(t_abs.ravel(), np.arange(n_days) + 0.5, anomaly).reshape(t_abs.shape)
    annual = climate.annual_amplitude_c * np.cos(
        2 * np.pi * (day_of_year[:, None] - climate.warmest_day_of_year) / 365.25
    )
    diurnal = climate.diurnal_amplitude_c * np.cos(2 * np.pi * (hours[None, :] - climate.warmest_hour) / 24.0)
    return climate.mean_c + annual + diurnal + anomaly_t


def darkness(climate: Climate, day_of_year: np.ndarray, grid_h: np.ndarray, step_h: float) -> np.ndarray:
    """Fraction of each interval between sunset and sunrise (days x steps)."""
    length = 12.0 + climate.day_length_amplitude_h * np.sin(2 * np.pi * (day_of_year - 80) / 365.25)
    sunrise = climate.solar_noon_h - length / 2
    sunset = climate.solar_noon_h + length / 2
    return 1.0 - _overlap(sunrise, sunset, grid_h, step_h)


def event_energy(h_idx, start_h, dur_h, power_kw, n_meters, n_steps, step_h) -> np.ndarray:
    """Average power (meters x steps) of rectangular events, integrated exactly per interval.

    An event of power p on [t0, t0 + d) has cumulative energy p * (max(t - t0, 0) - max(t - t0 - d, 0)).
    Each ramp ``p max(t - c, 0)`` is added to grid points j >= ceil(c / step) via a slope array and an
    intercept array (two cumulative sums), so all events cost O(events + meters x steps).
    Energy beyond the last interval is dropped (the series ends there).
    """
    n_grid = n_steps + 1
    slope = np.zeros(n_meters * n_grid)
    offset = np.zeros(n_meters * n_grid)
    for c, sign in ((start_h, 1.0), (start_h + dur_h, -1.0)):
        j0 = np.ceil(c / step_h - 1e-12).astype(np.int64)
        keep = j0 < n_grid
        j0k = j0[keep]
        p = sign * power_kw[keep]
        flat = h_idx[keep] * n_grid + j0k
        slope += np.bincount(flat, weights=p, minlength=n_meters * n_grid)
        offset += np.bincount(flat, weights=p * (j0k * step_h - c[keep]), minlength=n_meters * n_grid)
    slope = slope.reshape(n_meters, n_grid)
    offset = offset.reshape(n_meters, n_grid)
    active_slope = np.cumsum(slope, axis=1)
    # value at grid j: sum_{i<=j} offset_i + step * sum_{i<=j} slope_i (j - i)
    ramp = np.zeros_like(active_slope)
    ramp[:, 1:] = np.cumsum(active_slope[:, :-1], axis=1)
    cumulative = np.cumsum(offset, axis=1) + step_h * ramp
    return np.diff(cumulative, axis=1) / step_h
