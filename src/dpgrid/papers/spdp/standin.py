"""A paper-matched stand-in for the spdp paper's home: one Austin (Pecan Street) house at 5 minutes.

Parker, Hale, Barooah, *Spectral Differential Privacy: Application to Smart Meter Data*, Sec. IV, evaluate
SpDP on "consumer demand from a single home in Pecan Street [18]" (Austin, Texas) "with a 5-minute
sampling period"; Table II states the sensitive series' mean 1.73 kW and standard deviation 1.74 kW.
The data are not public without an account. This module builds a home that matches those stated facts
from an appliance-level field model, so that every other number of the paper becomes a prediction.

What the paper states about its data, and how each fact is used
----------------------------------------------------------------
* one home, Pecan Street (Austin, TX): a hot-humid climate, so an air-conditioned house with a heat
  pump (:data:`AUSTIN` climate normals below);
* 5-minute sampling (Sec. II-A, Fig. 1; Nyquist 6 / hour, Sec. II-C): ``step_minutes`` of the source;
* mean 1.73 kW and standard deviation 1.74 kW (Table II, "Sensitive"): matched exactly by choosing two
  ratings (the HVAC unit's electric power and the appliances' size factor) and the standby load, see
  :func:`solve_ratings`;
* Figs. 1-3 (a demand trace; D(K) grows with K; PSD estimates from 14/28/84 days "do not differ much";
  PSD distances settle to a constant): qualitative facts the model has by construction (a stationary
  daily/weekly routine plus weather), checked by the tests and figures, not used to set parameters.

The free property that no stated fact pins is how the home's variance splits between the slow HVAC load
(hours-long duty-cycle swings driven by the weather and the thermostat schedule) and the fast appliance
bursts (minutes). It is one parameter, ``hvac_energy_share`` (the HVAC unit's share of the annual
energy); the spdp experiment calibrates it on one printed result (workflow/papers/spdp/spdp.md, "Stand-in home").

Field model (every load at 1-minute resolution, then averaged to the step)
---------------------------------------------------------------------------
* **Weather.** :func:`dpgrid.data.synthetic_base.outdoor_temperature` with Austin normals (annual mean
  20.8 C, January about 11 C, August about 30 C, 12 K daily range). The house sees the outdoor
  temperature through a first-order thermal lag (time constant ``thermal_lag_h``).
* **Occupancy.** A two-adult working household: wake, leave, return and sleep times with day-to-day
  jitter; on a fraction of weekdays someone stays home; weekends start later and may include an outing.
* **HVAC (heat pump).** The thermostat's duty cycle follows the degree-hour balance of a degree-day
  model, D = clip((T_house - T_set + gains) / design_dt, 0, 1) for cooling and the mirror image for
  heating, with set-backs while the house is empty or asleep. A hysteresis thermostat on a first-order
  thermal model cycles at a rate proportional to D (1 - D) (Mortensen & Haggerty 1988; Callaway 2009,
  *Energy Convers. Manage.* 50, eq. 3), at most ``max_cycles_per_h`` at D = 1/2: the compressor is on
  while the cycle phase (the integral of the rate) has fractional part below D. This gives the
  on/off rectangles of several kW that dominate a Texas home's load.
* **Refrigerator.** Compressor cycling (period ~50 min, duty ~0.45) and a defrost heater twice a day.
* **Electric water heater.** 4.5 kW element reheating after showers (morning, evening), kitchen draws
  and standby losses.
* **Kitchen, laundry, dishwasher, small appliances.** Rectangular events (oven/range, kettle/microwave,
  washer + electric dryer, dishwasher) at household-typical times, integrated exactly over the
  intervals (:func:`dpgrid.data.synthetic_base.event_energy`).
* **Lighting and plug loads** while someone is awake at home (lighting only after dark), a standby
  load around the clock.

Deterministic: every draw comes from the ``rng`` passed in, in a fixed order; the same generator state
gives the identical series.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from dpgrid.data.meter import METER_COLUMNS, READING_COLUMNS, MeterData
from dpgrid.data.synthetic_base import (
    Climate,
    StandinError,
    checked_window,
    darkness,
    event_energy,
    interval_fraction,
    outdoor_temperature,
)

MINUTES_PER_DAY = 1440
METER_ID = "PS_STANDIN"
HEATING = ("heat_pump", "gas_furnace")

#: Austin, Texas (Camp Mabry 1991-2020 normals, rounded): January mean about 11 C, August about 30 C,
#: daily range about 12 K, day length 10.2 h to 14.1 h (30.3 N).
AUSTIN = Climate(
    mean_c=20.8,
    annual_amplitude_c=9.5,
    warmest_day_of_year=213,
    diurnal_amplitude_c=6.0,
    warmest_hour=16.0,
    anomaly_sd_c=3.0,
    anomaly_ar=0.7,
    day_length_amplitude_h=1.95,
    solar_noon_h=13.5,
)


@dataclass(frozen=True)
class Appliance:
    """A household appliance used in discrete events (power in kW at size factor 1, times in hours)."""

    power_kw: float
    duration_min: tuple[float, float]  #: uniform range of one event's duration (minutes)


@dataclass(frozen=True)
class StandinHome:
    """Parameters of the stand-in home. Ratings at appliance size factor 1; the solver scales them."""

    # --- stated facts (Table II) and the one free property
    mean_kw: float = 1.73
    std_kw: float = 1.74
    hvac_energy_share: float = 0.5
    # --- climate and house
    climate: Climate = AUSTIN
    thermal_lag_h: float = 3.0
    internal_gain_k: float = 2.0  #: internal + solar gains expressed in kelvin of indoor excess
    cooling_setpoint_c: float = 24.5  #: while awake at home
    cooling_setback_k: float = 2.5  #: while away (asleep: half of it)
    cooling_design_dt_k: float = 14.0  #: indoor excess at which the AC runs continuously
    heating_setpoint_c: float = 20.5
    heating_setback_k: float = 3.0
    heating_design_dt_k: float = 22.0
    heating: str = "heat_pump"  #: "heat_pump" or "gas_furnace" (only the blower is electric)
    heating_power_ratio: float = 0.9  #: heat-pump electric power in heating / in cooling
    furnace_blower_ratio: float = 0.12  #: gas furnace: blower power / AC power (about 0.45 kW / 3.5 kW)
    max_cycles_per_h: float = 3.0  #: thermostat cycling rate at duty 1/2
    # --- occupancy (hours since midnight: personal mean, daily jitter s.d.)
    wake_h: float = 6.5
    leave_h: float = 7.9
    return_h: float = 17.8
    sleep_h: float = 23.0
    jitter_h: float = 0.4
    p_home_weekday: float = 0.25  #: someone stays home on a weekday
    weekend_wake_delay_h: float = 1.3
    p_weekend_outing: float = 0.5
    # --- always-on and occupancy loads (kW at size factor 1)
    plug_active_kw: float = 0.22
    plug_asleep_kw: float = 0.04
    lighting_kw: float = 0.25
    fridge_kw: float = 0.13
    fridge_period_min: float = 50.0
    fridge_duty: float = 0.45
    defrost_kw: float = 0.45
    defrost_min: float = 20.0
    defrost_interval_h: float = 12.0
    # --- event appliances
    water_heater_kw: float = 4.5
    shower_reheat_min: tuple = (25.0, 45.0)
    draw_reheat_min: tuple = (5.0, 12.0)
    standby_reheat_every_h: float = 6.0
    standby_reheat_min: tuple = (6.0, 10.0)
    oven: Appliance = field(default_factory=lambda: Appliance(2.4, (20.0, 70.0)))
    kettle: Appliance = field(default_factory=lambda: Appliance(1.2, (3.0, 10.0)))
    microwave: Appliance = field(default_factory=lambda: Appliance(1.1, (2.0, 8.0)))
    washer: Appliance = field(default_factory=lambda: Appliance(0.5, (35.0, 55.0)))
    dryer: Appliance = field(default_factory=lambda: Appliance(4.8, (40.0, 65.0)))
    dishwasher: Appliance = field(default_factory=lambda: Appliance(1.2, (45.0, 75.0)))
    p_dinner_cooked: float = 0.75
    laundry_loads_per_week: float = 4.0
    p_dishwasher: float = 0.6
    microwave_per_active_h: float = 0.12
    # --- solver bounds (physical plausibility of the solved ratings)
    min_standby_kw: float = 0.05
    size_factor_range: tuple = (0.3, 3.0)


@dataclass(frozen=True)
class StandinComponents:
    """The home's loads before the ratings are solved (kW per unit rating, at the output step)."""

    hvac_unit: np.ndarray  #: HVAC electric power per kW of cooling rating
    appliances: np.ndarray  #: all non-HVAC loads at appliance size factor 1 (no standby)
    outdoor_c: np.ndarray  #: outdoor temperature (for diagnostics)


@dataclass(frozen=True)
class StandinRatings:
    """Solved ratings: demand = standby_kw + size_factor * appliances + hvac_kw * hvac_unit."""

    hvac_kw: float
    size_factor: float
    standby_kw: float

    def as_dict(self) -> dict:
        return {"hvac_kw": self.hvac_kw, "size_factor": self.size_factor, "standby_kw": self.standby_kw}


# --------------------------------------------------------------------------- components


def _thermostat_cycles(duty: np.ndarray, max_rate_per_h: float, dt_h: float, u0: float) -> np.ndarray:
    """On/off state of a hysteresis thermostat with duty ``duty`` (1-D, per time step of ``dt_h`` hours).

    Cycle rate r = 4 r_max D (1 - D) (cycles per hour); the unit is on while frac(u0 + integral r dt) < D.
    """
    rate = 4.0 * max_rate_per_h * duty * (1.0 - duty)
    phase = u0 + np.cumsum(rate) * dt_h
    return (np.mod(phase, 1.0) < duty).astype(float)


def _schedule(h: StandinHome, weekday: np.ndarray, rng: np.random.Generator) -> dict:
    """Daily wake / away / sleep times (hours since the day's midnight; arrays of length days)."""
    days = weekday.size
    weekend = weekday >= 5
    jit = lambda: rng.normal(0.0, h.jitter_h, days)
    wake = np.clip(h.wake_h + jit() + h.weekend_wake_delay_h * weekend, 4.5, 11.0)
    sleep = np.clip(h.sleep_h + jit() + 0.5 * weekend, wake + 12.0, 26.5)
    stay_home = rng.random(days) < h.p_home_weekday
    outing = rng.random(days) < h.p_weekend_outing
    out_start = rng.uniform(10.0, 15.0, days)
    out_len = rng.uniform(1.5, 6.0, days)
    leave_w = np.maximum(h.leave_h + jit(), wake + 0.6)
    back_w = np.maximum(h.return_h + jit(), leave_w + 6.0)
    work = ~weekend & ~stay_home
    out = weekend & outing
    leave = np.where(work, leave_w, np.where(out, out_start, 0.0))
    back = np.where(work, back_w, np.where(out, np.minimum(out_start + out_len, sleep - 1.0), 0.0))
    back = np.where(back > leave, back, leave)
    return {"wake": wake, "sleep": sleep, "leave": leave, "back": back, "work": work}


def _events(starts_h, dur_min, power_kw, n_steps: int, step_h: float) -> np.ndarray:
    """Average power per step of rectangular events (start in hours since the series start)."""
    starts_h = np.asarray(starts_h, float)
    if starts_h.size == 0:
        return np.zeros(n_steps)
    return event_energy(
        np.zeros(starts_h.size, dtype=np.int64),
        starts_h,
        np.asarray(dur_min, float) / 60.0,
        np.broadcast_to(np.asarray(power_kw, float), starts_h.shape).copy(),
        1,
        n_steps,
        step_h,
    )[0]


def _discrete_events(
    h: StandinHome,
    s: dict,
    weekday: np.ndarray,
    active: np.ndarray,
    days: int,
    res: float,
    n_steps: int,
    step_h: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """The home's discrete appliance events (hours since the series start: defrost, water heater, kitchen, laundry,
    microwave), each integrated exactly over the output steps: kW per step (n_steps). ``s`` is the day schedule of
    :func:`_schedule`, ``active`` the per-minute fraction of awake occupants at home."""
    day0 = np.arange(days) * 24.0
    ev_start, ev_dur, ev_pow = [], [], []

    def add(mask, t_h, dur_range, power):
        t_h = np.asarray(t_h, float)[mask]
        ev_start.append(t_h)
        ev_dur.append(rng.uniform(*dur_range, t_h.size))
        ev_pow.append(np.full(t_h.size, power))

    home_day = ~s["work"]
    # defrost heater every ~12 h
    n_def = math.ceil(days * 24.0 / h.defrost_interval_h) + 1
    t_def = rng.uniform(0, h.defrost_interval_h) + np.arange(n_def) * h.defrost_interval_h + rng.normal(0, 0.5, n_def)
    keep = (t_def >= 0) & (t_def < days * 24.0)
    add(keep, t_def, (h.defrost_min * 0.8, h.defrost_min * 1.2), h.defrost_kw)
    # water heater: two morning showers, one evening shower (most days), kitchen draws, standby reheats
    for base, p in ((s["wake"] + 0.2, 0.95), (s["wake"] + 0.6, 0.8), (s["sleep"] - 1.2, 0.5)):
        add(rng.random(days) < p, day0 + base + rng.uniform(0.0, 0.4, days), h.shower_reheat_min, h.water_heater_kw)
    dinner = np.where(s["work"], s["back"] + 0.8, 18.3) + rng.normal(0.0, 0.4, days)
    add(rng.random(days) < 0.9, day0 + dinner + 1.0 + rng.uniform(0, 0.5, days), h.draw_reheat_min, h.water_heater_kw)
    n_sb = int(days * 24.0 / h.standby_reheat_every_h) + 1
    t_sb = (
        rng.uniform(0, h.standby_reheat_every_h) + np.arange(n_sb) * h.standby_reheat_every_h + rng.normal(0, 1.0, n_sb)
    )
    add((t_sb >= 0) & (t_sb < days * 24.0), t_sb, h.standby_reheat_min, h.water_heater_kw)
    # kitchen: breakfast kettle, lunch at home, dinner on the range/oven
    add(
        rng.random(days) < 0.85,
        day0 + s["wake"] + rng.uniform(0.2, 0.8, days),
        h.kettle.duration_min,
        h.kettle.power_kw,
    )
    add(
        home_day & (rng.random(days) < 0.6),
        day0 + rng.normal(12.5, 0.5, days),
        h.oven.duration_min,
        0.5 * h.oven.power_kw,
    )
    add(rng.random(days) < h.p_dinner_cooked, day0 + dinner, h.oven.duration_min, h.oven.power_kw)
    add(
        rng.random(days) < h.p_dishwasher,
        day0 + dinner + rng.uniform(1.2, 2.5, days),
        h.dishwasher.duration_min,
        h.dishwasher.power_kw,
    )
    # laundry: weekends more likely; washer then dryer
    p_laundry = np.where(weekday >= 5, 2.5, 1.0)
    p_laundry = (
        p_laundry * h.laundry_loads_per_week / p_laundry[:7].sum()
        if days >= 7
        else p_laundry * h.laundry_loads_per_week / 7
    )
    laundry = rng.random(days) < np.clip(p_laundry, 0.0, 1.0)
    t_wash = day0 + np.where(
        weekday >= 5, rng.uniform(9.5, 16.0, days), np.maximum(dinner - 0.5, 18.0) + rng.uniform(0.0, 1.5, days)
    )
    add(laundry, t_wash, h.washer.duration_min, h.washer.power_kw)
    add(laundry, t_wash + 0.95, h.dryer.duration_min, h.dryer.power_kw)
    # microwave / small appliances: Poisson while active
    lam = h.microwave_per_active_h * active.reshape(days, MINUTES_PER_DAY).sum(axis=1) * res
    n_mw = rng.poisson(lam)
    d_idx = np.repeat(np.arange(days), n_mw)
    t_mw = d_idx * 24.0 + rng.uniform(s["wake"][d_idx], np.maximum(s["sleep"][d_idx], s["wake"][d_idx] + 1.0))
    add(np.ones(t_mw.size, bool), t_mw, h.microwave.duration_min, h.microwave.power_kw)

    starts = np.concatenate(ev_start)
    durs = np.concatenate(ev_dur)
    pows = np.concatenate(ev_pow)
    inside = (starts >= 0) & (starts < days * 24.0)
    return _events(starts[inside], durs[inside], pows[inside], n_steps, step_h)


def standin_components(
    home: StandinHome, start, days: int, step_minutes: int, rng: np.random.Generator
) -> StandinComponents:
    """Generate the home's load components (unit ratings) at ``step_minutes`` for ``days`` days."""
    from scipy.signal import lfilter

    start = checked_window(start, days, step_minutes, StandinError)
    h = home
    dates = pd.date_range(start, periods=days, freq="D")
    weekday = dates.weekday.to_numpy()
    doy = dates.dayofyear.to_numpy().astype(float)
    res = 1.0 / 60.0  # 1-minute internal resolution (hours)
    grid = np.arange(MINUTES_PER_DAY) * res  # minute starts, hours of day
    n_min = days * MINUTES_PER_DAY
    spm = step_minutes  # minutes per output step
    n_steps = n_min // spm
    step_h = step_minutes / 60.0

    # --- weather and the house's lagged temperature
    t_out = outdoor_temperature(h.climate, doy, grid + res / 2, rng).ravel()
    a = math.exp(-res / h.thermal_lag_h)
    t_house = lfilter([1.0 - a], [1.0, -a], t_out, zi=[a * t_out[0]])[0]
    dark = darkness(h.climate, doy, grid, res).ravel()

    # --- occupancy (fractions per minute)
    s = _schedule(h, weekday, rng)
    awake = interval_fraction(s["wake"], s["sleep"], grid, res).ravel()
    away = interval_fraction(s["leave"], s["back"], grid, res).ravel()
    active = np.clip(awake - away, 0.0, 1.0)
    asleep_home = np.clip(1.0 - awake - away, 0.0, 1.0)

    # --- HVAC (heat pump): duty from the degree balance, cycling thermostat
    setback = np.clip(away + 0.5 * asleep_home, 0.0, 1.0)
    excess = t_house + h.internal_gain_k - (h.cooling_setpoint_c + h.cooling_setback_k * setback)
    duty_c = np.clip(excess / h.cooling_design_dt_k, 0.0, 1.0)
    deficit = (h.heating_setpoint_c - h.heating_setback_k * setback) - (t_house + h.internal_gain_k)
    duty_h = np.clip(deficit / h.heating_design_dt_k, 0.0, 1.0)
    duty = np.maximum(duty_c, duty_h)  # never both (setpoints are 4 K apart)
    on = _thermostat_cycles(duty, h.max_cycles_per_h, res, rng.random())
    if h.heating not in HEATING:
        raise StandinError(f"heating must be one of {HEATING}, got {h.heating!r}")
    heat_ratio = h.heating_power_ratio if h.heating == "heat_pump" else h.furnace_blower_ratio
    hvac = on * np.where(duty_h > duty_c, heat_ratio, 1.0)

    # --- continuous appliance loads (per minute)
    plug = h.plug_active_kw * active + h.plug_asleep_kw * asleep_home + h.lighting_kw * active * dark
    fridge_duty = np.clip(h.fridge_duty + 0.004 * (t_house - 24.0), 0.2, 0.8)
    period = h.fridge_period_min * np.exp(lfilter([0.02], [1.0, -0.98], rng.normal(0.0, 0.3, n_min)))
    fridge_phase = rng.random() + np.cumsum(1.0 / period)
    fridge = h.fridge_kw * (np.mod(fridge_phase, 1.0) < fridge_duty)
    minute_loads = plug + fridge
    cont = minute_loads.reshape(n_steps, spm).mean(axis=1)
    hvac_step = hvac.reshape(n_steps, spm).mean(axis=1)

    # --- discrete events (hours since the series start), integrated exactly per output step
    events = _discrete_events(h, s, weekday, active, days, res, n_steps, step_h, rng)
    return StandinComponents(
        hvac_unit=hvac_step, appliances=cont + events, outdoor_c=t_out.reshape(n_steps, spm).mean(axis=1)
    )


# --------------------------------------------------------------------------- ratings


def solve_ratings(comp: StandinComponents, home: StandinHome) -> StandinRatings:
    """Ratings that give the stated mean and standard deviation with the given HVAC energy share.

    demand = b + s A + P H with H the HVAC unit series and A the appliance series:

    - the HVAC share fixes P = share * mean / mean(H);
    - the standard deviation fixes s, the positive root of s^2 var(A) + 2 s P cov(A, H) + P^2 var(H) = std^2;
    - the mean fixes the standby load b = mean - s mean(A) - P mean(H).

    Raises :class:`StandinError` (naming the parameter) when the share cannot give the stated statistics
    with a standby load >= ``min_standby_kw`` and a size factor in ``size_factor_range``.
    """
    H, A = comp.hvac_unit, comp.appliances
    mu, sd, share = home.mean_kw, home.std_kw, home.hvac_energy_share
    if not (0.0 <= share < 1.0):
        raise StandinError(f"hvac_energy_share must lie in [0, 1), got {share!r}")
    if not (mu > 0 and sd > 0):
        raise StandinError(f"mean_kw and std_kw must be positive, got {mu!r}, {sd!r}")
    mh = float(H.mean())
    if share > 0 and mh <= 0:
        raise StandinError("the HVAC never runs in this window; hvac_energy_share must be 0")
    p = share * mu / mh if share > 0 else 0.0
    va, vh = float(A.var()), float(H.var())
    c = float(np.mean((A - A.mean()) * (H - mh)))
    disc = (p * c) ** 2 - va * (p * p * vh - sd * sd)
    if disc < 0 or p * p * vh >= sd * sd and p * c >= 0:
        raise StandinError(
            f"hvac_energy_share = {share:g}: the HVAC alone has std {p * math.sqrt(vh):.3g} kW "
            f">= the stated std {sd:g} kW; lower hvac_energy_share"
        )
    s = (-p * c + math.sqrt(disc)) / va
    b = mu - s * float(A.mean()) - p * mh
    lo, hi = home.size_factor_range
    if not (lo <= s <= hi):
        raise StandinError(
            f"hvac_energy_share = {share:g} needs appliance size factor {s:.3g} outside {lo}-{hi} "
            "(appliance ratings implausible)"
        )
    if b < home.min_standby_kw:
        raise StandinError(
            f"hvac_energy_share = {share:g} leaves a standby load of {b:.3g} kW < "
            f"{home.min_standby_kw} kW: the stated mean cannot be met with this share"
        )
    return StandinRatings(hvac_kw=p, size_factor=s, standby_kw=b)


def standin_series(
    home: StandinHome, start, days: int, step_minutes: int, rng: np.random.Generator
) -> tuple[np.ndarray, StandinRatings, StandinComponents]:
    """The stand-in home's demand (kW) at ``step_minutes``, its solved ratings and its components."""
    comp = standin_components(home, start, days, step_minutes, rng)
    r = solve_ratings(comp, home)
    x = r.standby_kw + r.size_factor * comp.appliances + r.hvac_kw * comp.hvac_unit
    if not (np.isfinite(x).all() and (x > 0).all()):  # positive by construction (standby > 0)
        raise AssertionError("stand-in model produced a non-positive or non-finite load")
    return x, r, comp


def synthesize_spdp_standin(
    start,
    days: int,
    step_minutes: int,
    rng: np.random.Generator,
    *,
    home: StandinHome | None = None,
    source: str = "spdp_standin",
) -> MeterData:
    """The stand-in home as :class:`MeterData` (one residential meter ``PS_STANDIN``)."""
    home = home or StandinHome()
    x, _, _ = standin_series(home, start, days, step_minutes, rng)
    ts = pd.date_range(pd.Timestamp(start), periods=x.size, freq=pd.Timedelta(minutes=step_minutes))
    readings = pd.DataFrame(
        {"meter_id": np.full(x.size, METER_ID, dtype=object), "timestamp": ts.to_numpy(dtype="datetime64[ns]"), "kw": x}
    )[READING_COLUMNS]
    meters = pd.DataFrame({"meter_id": [METER_ID], "customer_class": ["residential"]})[METER_COLUMNS]
    return MeterData(readings, meters, source)


#: Keys of a ``spdp_standin`` entry of ``data.experiments`` (besides start, days, step_minutes).
SPEC_KEYS = ("mean_kw", "std_kw", "hvac_energy_share", "heating")


def home_from_spec(spec: dict, name: str = "<experiment>") -> StandinHome:
    """:class:`StandinHome` from a data-config entry (keys :data:`SPEC_KEYS`)."""
    missing = [k for k in SPEC_KEYS if k not in spec]
    if missing:
        raise StandinError(f"config: data.experiments.{name}: missing key(s) {missing} for source 'spdp_standin'")
    if spec["heating"] not in HEATING:
        raise StandinError(f"config: data.experiments.{name}.heating is {spec['heating']!r}; expected one of {HEATING}")
    return replace(
        StandinHome(),
        mean_kw=float(spec["mean_kw"]),
        std_kw=float(spec["std_kw"]),
        hvac_energy_share=float(spec["hvac_energy_share"]),
        heating=str(spec["heating"]),
    )


def load_source(spec: dict, rng, name: str):
    """The stand-in's meter data for the experiment entry ``spec`` (``data.experiments.<name>``; the
    registry of :mod:`dpgrid.data.sources` calls this for source ``spdp_standin``)."""
    from dpgrid.data.meter import spec_window

    start, days, step = spec_window(spec, name)
    return synthesize_spdp_standin(
        start, days, step, rng, home=home_from_spec(spec, name), source=f"spdp_standin:{name}"
    )
