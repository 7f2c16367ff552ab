"""Offline synthetic smart-meter data: a vectorised bottom-up household and business model.

This is dpgrid's embedded default data source: it needs no download and produces
:class:`dpgrid.data.meter.MeterData` directly at the requested sampling step (5 min, 15 min,
1 h, ...). It stands in for the proprietary or account-only data of the papers (classdp: 100
households at 15 min; spdp: one Pecan Street home at 5 min; dpkmeans: 1416 California customers,
hourly, 7 of them commercial).

What it models
--------------
Every quantity is a numpy array over (customers x days x steps-of-day); there is no Python loop
over time steps (only over the two or three intervals of a day's schedule).

* **Schedules with day-to-day jitter (occupancy).** Each household has a type and personal
  schedule: waking, leaving, returning and going to sleep (times in hours). A *worker* household
  (probability ``ResidentialModel.p_worker``) is away on weekdays between leaving and returning; a
  household that stays home makes a shorter errand with some probability; at weekends everyone
  wakes later and goes out with some probability. Each day's times are the personal times plus
  Gaussian jitter. From the intervals, the fraction of each metering interval spent *active*
  (at home and awake), *away* and *asleep* is computed exactly (interval overlap), so occupancy is
  already integrated over the interval. Sleep after midnight spills into the next day.
* **Appliance events.** Bursts (kettle, oven, washing machine, shower pump, ...) arrive as a Poisson
  process whose rate is proportional to active occupancy and raised around meal times. Each event
  has a uniformly distributed start inside its interval, a log-normal duration and a heavy-tailed
  (Pareto) power capped at a physical limit. The event energy is integrated exactly over every
  interval the event overlaps (cumulative ramp functions), so a 40-minute event at a 15-minute
  step spreads over three or four intervals with the right energy in each.
* **Lighting** while active and the sun is down (sunrise/sunset from the day of year at a mid
  latitude, exact interval overlap); **activity load** (TV, computers, small appliances) while
  active; a per-household **baseload** (fridge, standby) with white interval noise.
* **Seasonal heating and cooling.** A common outdoor temperature: annual cosine + diurnal cosine +
  an AR(1) daily weather anomaly (shared by all customers, as weather is). A fraction of households
  heat electrically (heat-loss coefficient x degrees below a setpoint that is lowered while away or
  asleep); a fraction have air conditioning (coefficient x degrees above a threshold while at home).
* **Heterogeneity.** Per-household log-normal scale, log-normal baseload, household type, personal
  schedule, heating/cooling ownership and coefficients.
* **Commercial customers** (offices, shops): business hours with per-customer opening/closing times
  and jitter, weekday/Saturday/Sunday operation by type, a night base fraction, weather-dependent
  HVAC during opening hours; a log-normal peak of tens of kW, so they are 10-50 times larger
  than a household and are outliers for K-means (as in the dpkmeans paper's 7 commercial
  customers).

Magnitudes (default parameters): residential mean load about 0.3-1.5 kW (median household about
0.6 kW), peaks of several kW at 15-minute resolution; commercial mean 10-30 kW. All loads are strictly
positive (the baseload is positive and multiplied by log-normal noise), so a log transform is safe.

Limits (what it does *not* model)
---------------------------------
Calendar: weekends only, no public holidays; naive local time without daylight-saving shifts.
No photovoltaics or electric vehicles (so no negative net load). No appliance-level realism
(cycling fridges, washing-machine programmes, standby of specific devices): events are generic
rectangular bursts. Weather is a stylised mid-latitude climate, not a measured series, and is
common to all customers (one feeder). Occupants are a household, not individual persons (the CREST
model of Richardson et al. simulates persons and ~30 appliances at 1-minute resolution, at about
12 s per household-year in richardsonpy). The parameters are plausible values, not fitted to a
specific data set; the model reproduces the qualitative structure (daily/weekly periodicity,
morning/evening peaks, bursty heavy-tailed loads, heterogeneity, winter/summer shape), which is what
the papers' methods exercise, not any particular population's statistics.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from dpgrid.data.meter import METER_COLUMNS, READING_COLUMNS, MeterData
from dpgrid.data.synthetic_base import (
    Calendar,
    Climate,
    _overlap,
    checked_window,
    darkness,
    event_energy,
    interval_fraction,
    meter_ids,
    outdoor_temperature,
)


@dataclass(frozen=True)
class ResidentialModel:
    """Parameters of the household model (kW, hours, events per hour)."""

    scale_log_sd: float = 0.4  #: log-normal household scale (multiplies all but weather loads)
    baseload_median_kw: float = 0.17
    baseload_log_sd: float = 0.45
    baseload_noise_sd: float = 0.12  #: log-normal interval noise on the baseload
    activity_kw: float = 0.18  #: while active
    lighting_kw: float = 0.18  #: while active and dark
    p_worker: float = 0.65  #: away during weekday working hours
    p_errand: float = 0.35  #: non-worker: daily afternoon errand probability
    p_weekend_outing: float = 0.45  #: per weekend day
    wake_h: tuple = (6.7, 0.6)  #: (personal mean, s.d. across households)
    leave_h: tuple = (8.0, 0.6)
    return_h: tuple = (17.6, 0.8)
    sleep_h: tuple = (23.0, 0.7)
    daily_jitter_h: float = 0.4  #: s.d. of a day's times around the personal times
    weekend_wake_delay_h: float = 1.3
    event_rate_per_h: float = 0.9  #: appliance events per active hour (outside meal times)
    meal_rate_boost: float = 2.0  #: extra relative rate at the meal peaks
    meal_hours: tuple = (7.3, 12.5, 18.8)
    meal_width_h: float = 0.8
    event_power_min_kw: float = 0.5  #: Pareto scale
    event_power_tail: float = 2.2  #: Pareto tail index (heavy tail)
    event_power_max_kw: float = 7.0  #: physical cap (a household connection)
    event_duration_median_min: float = 12.0
    event_duration_log_sd: float = 0.9
    event_duration_max_min: float = 180.0
    p_electric_heating: float = 0.25
    heating_kw_per_k_median: float = 0.06
    heating_setpoint_c: float = 19.5
    heating_setback_k: float = 3.0  #: setpoint reduction while away or asleep
    p_cooling: float = 0.45
    cooling_kw_per_k_median: float = 0.12
    cooling_threshold_c: float = 23.0
    coefficient_log_sd: float = 0.35


@dataclass(frozen=True)
class CommercialModel:
    """Parameters of the business-customer model."""

    peak_median_kw: float = 30.0
    peak_log_sd: float = 0.45
    night_fraction: tuple = (0.2, 0.45)  #: uniform range of the night base as a fraction of peak
    open_h: tuple = (7.5, 0.7)
    close_h: tuple = (18.5, 1.0)
    daily_jitter_h: float = 0.25
    p_saturday: float = 0.45  #: per customer: opens on Saturdays (shorter hours)
    p_sunday: float = 0.15
    hvac_per_k: float = 0.012  #: fraction of peak per kelvin away from 18 C while open
    noise_sd: float = 0.06


@dataclass(frozen=True)
class SyntheticModel:
    climate: Climate = field(default_factory=Climate)
    residential: ResidentialModel = field(default_factory=ResidentialModel)
    commercial: CommercialModel = field(default_factory=CommercialModel)


def _residential_draw_table(m: ResidentialModel, days: int, spd: int) -> list[tuple[str, str, tuple, tuple]]:
    """The household model's data-independent random draws, in stream order.

    Each entry is ``(name, Generator method, arguments, shape per household)``; the draw for ``n``
    households has shape ``(n,) + shape``. After these come the data-dependent draws: the Poisson event
    counts (rate from the schedules) and, per event, its start, power and duration (:func:`_residential_loads`).
    """
    return [
        ("scale", "lognormal", (0.0, m.scale_log_sd), ()),
        ("baseload", "lognormal", (np.log(m.baseload_median_kw), m.baseload_log_sd), ()),
        ("worker", "random", (), ()),
        ("wake", "normal", tuple(m.wake_h), ()),
        ("leave", "normal", tuple(m.leave_h), ()),
        ("return", "normal", tuple(m.return_h), ()),
        ("sleep", "normal", tuple(m.sleep_h), ()),
        ("heating_on", "random", (), ()),
        ("heating_coef", "lognormal", (np.log(m.heating_kw_per_k_median), m.coefficient_log_sd), ()),
        ("cooling_on", "random", (), ()),
        ("cooling_coef", "lognormal", (np.log(m.cooling_kw_per_k_median), m.coefficient_log_sd), ()),
        ("jitter_wake", "normal", (0.0, m.daily_jitter_h), (days,)),
        ("jitter_sleep", "normal", (0.0, m.daily_jitter_h), (days,)),
        ("jitter_leave", "normal", (0.0, m.daily_jitter_h), (days,)),
        ("jitter_return", "normal", (0.0, m.daily_jitter_h), (days,)),
        ("errand", "random", (), (days,)),
        ("errand_start", "uniform", (10.0, 15.5), (days,)),
        ("errand_len_weekend", "uniform", (1.5, 6.0), (days,)),
        ("errand_len_weekday", "uniform", (0.7, 3.0), (days,)),
        ("baseload_noise", "lognormal", (0.0, m.baseload_noise_sd), (days, spd)),
    ]


#: the draws after the table, per household block: event counts, then per event start, power, duration
_EVENT_DRAWS = ("counts", "event_start", "event_power", "event_duration")


def _activity(
    d: dict, weekday: np.ndarray, grid_h: np.ndarray, step_h: float, m: ResidentialModel
) -> tuple[np.ndarray, np.ndarray]:
    """Fraction of each interval at home and awake (``active``) and at home (``home``), (n, days, spd),
    from the table draws ``d`` of ``n`` households (daily schedules with jitter)."""
    is_weekend = (weekday >= 5)[None, :]
    worker = d["worker"] < m.p_worker
    wake = d["wake"][:, None] + d["jitter_wake"] + m.weekend_wake_delay_h * is_weekend
    sleep = d["sleep"][:, None] + d["jitter_sleep"] + 0.5 * is_weekend
    wake = np.clip(wake, 4.5, 11.0)
    sleep = np.clip(sleep, np.maximum(wake + 8.0, 20.0), 26.5)
    # away interval: work (weekday workers), errand (non-workers), outing (weekends)
    work_day = worker[:, None] & ~is_weekend
    leave_work = np.maximum(d["leave"][:, None] + d["jitter_leave"], wake + 0.5)
    return_work = np.maximum(d["return"][:, None] + d["jitter_return"], leave_work + 4.0)
    errand = d["errand"] < np.where(is_weekend, m.p_weekend_outing, m.p_errand)
    errand_len = np.where(is_weekend, d["errand_len_weekend"], d["errand_len_weekday"])
    errand &= ~work_day
    leave = np.where(work_day, leave_work, np.where(errand, np.maximum(d["errand_start"], wake + 0.5), np.nan))
    back = np.where(work_day, return_work, np.where(errand, leave + errand_len, np.nan))
    back = np.minimum(back, sleep - 0.5)
    has_away = np.isfinite(leave) & (back > leave)
    leave = np.where(has_away, leave, 0.0)
    back = np.where(has_away, back, 0.0)

    awake = interval_fraction(wake, sleep, grid_h, step_h)  # (n, days, spd)
    away = interval_fraction(leave, back, grid_h, step_h)
    active = np.clip(awake - away, 0.0, 1.0)
    return active, 1.0 - away


def _expected_events(active: np.ndarray, grid_h: np.ndarray, step_h: float, m: ResidentialModel) -> np.ndarray:
    """Expected appliance events per interval (n x days*spd): rate proportional to active time."""
    meal = sum(np.exp(-0.5 * ((grid_h + step_h / 2 - mh) / m.meal_width_h) ** 2) for mh in m.meal_hours)
    rate = m.event_rate_per_h * (1.0 + m.meal_rate_boost * meal)  # (spd,)
    n = active.shape[0]
    return (active * rate[None, None, :] * step_h).reshape(n, -1)


def _residential_loads(
    d: dict,
    draw,
    step_h: float,
    grid_h: np.ndarray,
    weekday: np.ndarray,
    temp: np.ndarray,
    dark: np.ndarray,
    m: ResidentialModel,
) -> np.ndarray:
    """Average power (n x days*spd) of ``n`` households from their table draws ``d``.

    ``draw(name, method, *args)`` makes the data-dependent draws of :data:`_EVENT_DRAWS` (the event
    counts, then each event's start, power, duration). ``temp`` is the outdoor temperature (days x spd)
    shared by all, or (n x days x spd), one series each.
    """
    n, days, spd = d["baseload_noise"].shape
    scale = d["scale"]
    heating = (d["heating_on"] < m.p_electric_heating) * d["heating_coef"]
    cooling = (d["cooling_on"] < m.p_cooling) * d["cooling_coef"]
    active, home = _activity(d, weekday, grid_h, step_h, m)

    # --- continuous loads
    load = d["baseload"][:, None, None] * d["baseload_noise"]
    load += active * (m.activity_kw + m.lighting_kw * dark[None])
    load *= scale[:, None, None]
    asleep_or_away = np.clip(1.0 - active, 0.0, 1.0)
    setpoint = m.heating_setpoint_c - m.heating_setback_k * asleep_or_away
    temp_h = temp if temp.ndim == 3 else temp[None]  # one weather series for all, or one per household
    load += heating[:, None, None] * np.maximum(setpoint - temp_h, 0.0)
    load += cooling[:, None, None] * home * np.maximum(temp_h - m.cooling_threshold_c, 0.0)
    load = load.reshape(n, days * spd)

    # --- appliance events: Poisson counts per interval, rate proportional to active time
    counts = draw("counts", "poisson", _expected_events(active, grid_h, step_h, m))
    h_idx, t_idx = np.nonzero(counts)
    reps = counts[h_idx, t_idx]
    h_idx = np.repeat(h_idx, reps)
    t_idx = np.repeat(t_idx, reps)
    n_ev = len(h_idx)
    start = (t_idx + draw("event_start", "random", n_ev)) * step_h  # hours since start
    power = m.event_power_min_kw * (1.0 + draw("event_power", "pareto", m.event_power_tail, n_ev))
    power = np.minimum(power, m.event_power_max_kw) * np.sqrt(scale[h_idx])
    duration = draw("event_duration", "lognormal", np.log(m.event_duration_median_min), m.event_duration_log_sd, n_ev)
    duration = np.minimum(duration, m.event_duration_max_min) / 60.0
    load += event_energy(h_idx, start, duration, power, n, days * spd, step_h)
    return load


def _draw_table(table, gens, n: int) -> dict:
    """The table draws of ``n`` households, each from ``gens(name)``."""
    return {name: getattr(gens(name), method)(*args, size=(n,) + shape) for name, method, args, shape in table}


def _clone(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in the same state as ``rng`` (the same future stream)."""
    return np.random.Generator(copy.deepcopy(rng.bit_generator))


def residential_power(
    n: int, cal: Calendar, temp: np.ndarray, dark: np.ndarray, m: ResidentialModel, rng: np.random.Generator
) -> np.ndarray:
    """Average power (n x days*spd) of ``n`` households (all at once; :func:`_residential_blocks` for
    blocks of households with a bounded memory).

    ``temp`` is the outdoor temperature (days x spd) shared by all, or (n x days x spd), one series each.
    """
    table = _residential_draw_table(m, cal.days, cal.spd)
    d = _draw_table(table, lambda name: rng, n)

    def draw(name, method, *args):
        return getattr(rng, method)(*args)

    return _residential_loads(d, draw, cal.step_h, cal.grid_h, cal.weekday, temp, dark, m)


def _residential_blocks(
    n: int,
    cal: Calendar,
    temp: np.ndarray,
    dark: np.ndarray,
    m: ResidentialModel,
    rng: np.random.Generator,
    block: int,
) -> Iterator[np.ndarray]:
    """The rows of :func:`residential_power` in blocks of at most ``block`` households, bit for bit.

    Memory is that of one block, whatever ``n``. The one-pass model draws each quantity for all
    households at once (each draw a contiguous piece of ``rng``'s stream, households in order), so the
    stream is replayed with one generator per draw, cloned from ``rng`` at the draw's start: a first pass
    finds these starts block by block (drawing and discarding; the event counts need the households'
    schedules, which are re-drawn from their clones), and the returned iterator makes the second pass. On
    return ``rng`` is where :func:`residential_power` leaves it (so the commercial customers drawn next are the
    same). A block's computation is row-wise (households are independent given the shared weather), so its
    rows are those of the one-pass array.
    """
    if block < 1:
        raise ValueError(f"block must be >= 1 household, got {block}")
    step_h, grid_h, weekday = cal.step_h, cal.grid_h, cal.weekday
    table = _residential_draw_table(m, cal.days, cal.spd)
    bounds = [(a, min(a + block, n)) for a in range(0, n, block)]
    starts: dict[str, np.random.Generator] = {}
    for name, method, args, shape in table:  # pass 1a: the data-independent draws, one after the other
        starts[name] = _clone(rng)
        for a, b in bounds:
            getattr(rng, method)(*args, size=(b - a,) + shape)
    # pass 1b: the event counts (rates from the schedules, re-drawn from the clones) and the event draws
    starts["counts"] = _clone(rng)
    sched = {name: _clone(starts[name]) for name, *_ in table if name != "baseload_noise"}
    n_events = []
    for a, b in bounds:
        d = {nm: getattr(sched[nm], meth)(*args, size=(b - a,) + shp) for nm, meth, args, shp in table if nm in sched}
        active, _ = _activity(d, weekday, grid_h, step_h, m)
        n_events.append(int(rng.poisson(_expected_events(active, grid_h, step_h, m)).sum()))
    for name, method, args in (
        ("event_start", "random", ()),
        ("event_power", "pareto", (m.event_power_tail,)),
        ("event_duration", "lognormal", (np.log(m.event_duration_median_min), m.event_duration_log_sd)),
    ):
        starts[name] = _clone(rng)
        for k in n_events:
            getattr(rng, method)(*args, k)

    def blocks() -> Iterator[np.ndarray]:  # pass 2: every draw from its own clone, block by block
        gens = {name: _clone(g) for name, g in starts.items()}

        def draw(name, method, *args):
            return getattr(gens[name], method)(*args)

        for a, b in bounds:
            d = _draw_table(table, gens.__getitem__, b - a)
            t = temp[a:b] if temp.ndim == 3 else temp
            yield _residential_loads(d, draw, step_h, grid_h, weekday, t, dark, m)

    return blocks()


def commercial_power(
    n: int, cal: Calendar, temp: np.ndarray, m: CommercialModel, rng: np.random.Generator
) -> np.ndarray:
    """Average power (n x days*spd) of ``n`` business customers."""
    days, spd, step_h, grid_h, weekday = cal.days, cal.spd, cal.step_h, cal.grid_h, cal.weekday
    shape_hd = (n, days)
    peak = rng.lognormal(np.log(m.peak_median_kw), m.peak_log_sd, n)
    night = rng.uniform(*m.night_fraction, n)
    open_h = rng.normal(*m.open_h, n)
    close_h = np.maximum(rng.normal(*m.close_h, n), open_h + 6.0)
    saturday = rng.random(n) < m.p_saturday
    sunday = rng.random(n) < m.p_sunday
    o = open_h[:, None] + rng.normal(0.0, m.daily_jitter_h, shape_hd)
    c = close_h[:, None] + rng.normal(0.0, m.daily_jitter_h, shape_hd)
    sat = (weekday == 5)[None, :]
    sun = (weekday == 6)[None, :]
    c = np.where(sat, o + 0.6 * (c - o), c)  # shorter Saturday hours
    is_open = np.where(sat, saturday[:, None], np.where(sun, sunday[:, None], True))
    o = np.where(is_open, o, 0.0)
    c = np.where(is_open, c, 0.0)
    open_frac = _overlap(o, c, grid_h, step_h)  # (n, days, spd)
    hvac = m.hvac_per_k * np.abs(temp[None] - 18.0)
    shape = night[:, None, None] + (1.0 - night[:, None, None]) * open_frac * (1.0 + hvac)
    shape = shape + night[:, None, None] * 0.5 * hvac  # some HVAC at night too
    noise = rng.lognormal(0.0, m.noise_sd, (n, days, spd))
    return (peak[:, None, None] * shape * noise).reshape(n, days * spd)


def _check_arguments(n_residential: int, n_commercial: int, start, days: int, step_minutes: int) -> pd.Timestamp:
    if n_residential < 0 or n_commercial < 0 or n_residential + n_commercial == 0:
        raise ValueError(f"need at least one meter, got n_residential={n_residential}, n_commercial={n_commercial}")
    return checked_window(start, days, step_minutes)


def readings_frame(ids, kw: np.ndarray, timestamps: pd.DatetimeIndex) -> pd.DataFrame:
    """Long readings table (meters in order, then time) of ``kw`` (meters x samples) at ``timestamps``."""
    n_meters, n_steps = kw.shape
    return pd.DataFrame(
        {
            "meter_id": np.repeat(np.asarray(ids, dtype=object), n_steps),
            "timestamp": np.tile(timestamps.to_numpy(dtype="datetime64[ns]"), n_meters),
            "kw": kw.ravel(),
        }
    )[READING_COLUMNS]


def synthesize_meter_blocks(
    n_residential: int,
    n_commercial: int,
    start: str | pd.Timestamp,
    days: int,
    step_minutes: int,
    rng: np.random.Generator,
    *,
    model: SyntheticModel | None = None,
    block: int | None = None,
) -> tuple[pd.DataFrame, pd.DatetimeIndex, Iterator[tuple[list[str], np.ndarray]]]:
    """:func:`synthesize_meter_data` in blocks of meters: ``(meters, timestamps, blocks)``.

    ``blocks`` yields ``(meter ids, kW array meters x samples)`` in meter-table order: the households in
    blocks of at most ``block`` (None: all in one; :func:`_residential_blocks`), then the business customers
    (one block; they are drawn when this function returns). The rows are those of
    :func:`synthesize_meter_data` bit for bit, for any ``block``; memory is that of one block.
    """
    start = _check_arguments(n_residential, n_commercial, start, days, step_minutes)
    model = model or SyntheticModel()

    cal = Calendar.of(start, days, step_minutes)
    temp = outdoor_temperature(model.climate, cal.day_of_year, cal.grid_h + cal.step_h / 2, rng)
    dark = darkness(model.climate, cal.day_of_year, cal.grid_h, cal.step_h)

    res_ids = meter_ids("R", n_residential, 4) if n_residential else []
    com_ids = meter_ids("C", n_commercial, 3) if n_commercial else []
    args = (cal, temp, dark, model.residential, rng)
    if not n_residential:
        res_blocks: Iterator[np.ndarray] = iter(())
    elif block is None or block >= n_residential:
        res_blocks = iter([residential_power(n_residential, *args)])
    else:
        res_blocks = _residential_blocks(n_residential, *args, block)
    com = commercial_power(n_commercial, cal, temp, model.commercial, rng) if n_commercial else None

    def blocks() -> Iterator[tuple[list[str], np.ndarray]]:
        a = 0
        for kw in res_blocks:
            yield res_ids[a : a + len(kw)], _checked(kw)
            a += len(kw)
        if com is not None:
            yield com_ids, _checked(com)

    meters = pd.DataFrame(
        {
            "meter_id": res_ids + com_ids,
            "customer_class": ["residential"] * n_residential + ["commercial"] * n_commercial,
        }
    )[METER_COLUMNS]
    timestamps = pd.date_range(start, periods=days * cal.spd, freq=pd.Timedelta(minutes=step_minutes))
    return meters, timestamps, blocks()


def _checked(kw: np.ndarray) -> np.ndarray:
    if not (np.isfinite(kw).all() and (kw > 0).all()):  # guaranteed by construction; checked anyway
        raise AssertionError("synthetic model produced a non-positive or non-finite load")
    return kw


def synthesize_meter_data(
    n_residential: int,
    n_commercial: int,
    start: str | pd.Timestamp,
    days: int,
    step_minutes: int,
    rng: np.random.Generator,
    *,
    model: SyntheticModel | None = None,
    source: str = "synthetic",
) -> MeterData:
    """Synthesise ``days`` days of meter readings at ``step_minutes`` for households and businesses.

    ``start`` must be a midnight (the first interval starts there); ``step_minutes`` must divide
    1440. Residential meters are ``R0001``, ``R0002``, ...; commercial ``C001``, .... Every random
    draw comes from ``rng``, so the same generator state gives the identical frame.
    Returns :class:`MeterData`, valid by construction (readings in meter-table order, then time).
    For many meters, :func:`synthesize_meter_blocks` gives the same rows block by block.
    """
    meters, timestamps, blocks = synthesize_meter_blocks(
        n_residential, n_commercial, start, days, step_minutes, rng, model=model
    )
    ids, kws = zip(*blocks)
    kw = np.vstack(kws)
    return MeterData(readings_frame([i for part in ids for i in part], kw, timestamps), meters, source)
