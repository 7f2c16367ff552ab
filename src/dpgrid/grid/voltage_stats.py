"""Distances between bus-voltage distributions under true and synthetic load profiles.

The paper (Ravi et al., IEEE TSG 2022, Figs. 12-13) compares the histograms of voltage magnitude
and angle only visually. Here the two samples (all buses x all hours of an OPF run) are compared by
the Wasserstein-1 distance (``scipy.stats.wasserstein_distance``) and the two-sample Kolmogorov-Smirnov
statistic (``scipy.stats.ks_2samp``), with a bootstrap interval that resamples buses: every load bus
carries one house, so a resampled set of buses (with all its hours, in both runs at once) is a
resampled set of house slots. The OPF itself is not rerun per resample.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpgrid.grid.load_assignment import set_order

LOG = logging.getLogger(__name__)


def wasserstein1(a, b) -> float:
    """Wasserstein-1 distance between the empirical distributions of ``a`` and ``b``."""
    from scipy import stats

    return float(stats.wasserstein_distance(np.ravel(a), np.ravel(b)))


def ks_statistic(a, b) -> float:
    """Two-sample Kolmogorov-Smirnov statistic sup_x |F_a(x) - F_b(x)|."""
    from scipy import stats

    return float(stats.ks_2samp(np.ravel(a), np.ravel(b)).statistic)


def share_outside(v, low: float, high: float) -> float:
    """Fraction of values of ``v`` strictly outside ``[low, high]``."""
    v = np.ravel(v)
    if v.size == 0:
        return float("nan")
    return float(np.mean((v < low) | (v > high)))


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float


def bus_bootstrap(x, y, statistic, *, n_resamples: int, level: float, rng: np.random.Generator) -> Interval:
    """Percentile bootstrap interval of ``statistic(x, y)`` resampling rows (buses) of both arrays together.

    ``x`` and ``y`` are (n_bus, n_hour) arrays over the same buses; ``y`` may be ``None`` for a
    one-sample statistic ``statistic(x)``. Each resample draws ``n_bus`` bus indices with replacement
    and applies them to both arrays (a paired, cluster bootstrap: the hours of a bus stay together).
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or (y is not None and np.shape(y) != x.shape):
        raise ValueError(
            f"bus_bootstrap: need two (bus, hour) arrays of the same shape, got {x.shape}, "
            f"{None if y is None else np.shape(y)}"
        )
    if not 0 < level < 1 or n_resamples < 1:
        raise ValueError(f"bus_bootstrap: level {level} must be in (0, 1), n_resamples {n_resamples} >= 1")
    args = (x,) if y is None else (x, np.asarray(y, dtype=float))
    est = statistic(*args)
    n = x.shape[0]
    reps = np.empty(n_resamples)
    for i in range(n_resamples):
        idx = rng.integers(0, n, size=n)
        reps[i] = statistic(*(a[idx] for a in args))
    alpha = (1 - level) / 2
    lo, hi = np.quantile(reps, [alpha, 1 - alpha])
    return Interval(float(est), float(lo), float(hi))


# ------------------------------------------------------------------------------------------------
# tables of one feeder's OPF results (Figs. 12-13)
# ------------------------------------------------------------------------------------------------

#: The voltage quantities compared (columns of the voltage tables).
QUANTITIES = {"vm_pu": "voltage magnitude (p.u.)", "va_degree": "voltage angle (degree)"}


def common_converged_hours(status: pd.DataFrame) -> list[int]:
    """Hours whose OPF converged for every profile set present."""
    ok = status.pivot_table(index="hour", columns="profiles", values="converged", aggfunc="all")
    return sorted(int(h) for h in ok.index[ok.astype(bool).all(axis=1)])


def bus_hour_matrix(volt: pd.DataFrame, profiles: str, quantity: str, hours) -> np.ndarray:
    """(bus, hour) array of ``quantity`` for ``profiles`` over ``hours``."""
    sub = volt[(volt.profiles == profiles) & volt.hour.isin(hours)]
    return sub.pivot(index="bus", columns="hour", values=quantity).loc[:, list(hours)].to_numpy(float)


def distance_tables(
    volt: pd.DataFrame,
    status: pd.DataFrame,
    *,
    feeder: str,
    n_resamples: int,
    level: float,
    band: tuple[float, float],
    rng_for,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Distance rows (quantity x comparison) and band rows (profile set) for one feeder.

    ``rng_for(quantity, comparison)`` returns the generator of that bootstrap.
    """
    from dpgrid.grid.opf import failure_summary

    hours = common_converged_hours(status)
    sets = sorted(status.profiles.unique(), key=set_order)
    if sets[:2] != ["true", "synthetic"] or len(sets) < 3:
        raise ValueError(f"{feeder}: status table has profile sets {sets}; need true, synthetic, reference1..")
    n_snap = status.groupby("profiles").size().to_dict()
    n_conv = status.groupby("profiles")["converged"].sum().to_dict()
    dist, bandrows = [], []
    if not hours:
        LOG.warning("%s: no hour converged for every profile set; distances are NaN", feeder)
    for q in QUANTITIES:
        mats = {p: bus_hour_matrix(volt, p, q, hours) for p in sets} if hours else {}
        for other in sets[1:]:
            row = {"feeder": feeder, "quantity": q, "comparison": f"true_vs_{other}", "hours_used": len(hours)}
            for stat_name, fn in (("w1", wasserstein1), ("ks", ks_statistic)):
                if hours:
                    iv = bus_bootstrap(
                        mats["true"],
                        mats[other],
                        fn,
                        n_resamples=n_resamples,
                        level=level,
                        rng=rng_for(q, other, stat_name),
                    )
                    row.update({stat_name: iv.estimate, f"{stat_name}_low": iv.low, f"{stat_name}_high": iv.high})
                else:
                    row.update({stat_name: np.nan, f"{stat_name}_low": np.nan, f"{stat_name}_high": np.nan})
            row["n_values"] = int(mats["true"].size) if hours else 0
            dist.append(row)
    lo, hi = band
    for p in sets:
        m = bus_hour_matrix(volt, p, "vm_pu", hours) if hours else np.empty((0, 0))
        row = {
            "feeder": feeder,
            "profiles": p,
            "snapshots": int(n_snap.get(p, 0)),
            "converged": int(n_conv.get(p, 0)),
            "failed": failure_summary(status[status.profiles == p]),
            "hours_used": len(hours),
            "band_low_pu": lo,
            "band_high_pu": hi,
        }
        if hours:
            iv = bus_bootstrap(
                m,
                None,
                lambda x: share_outside(x, lo, hi),
                n_resamples=n_resamples,
                level=level,
                rng=rng_for("band", p, "share"),
            )
            row.update(
                {
                    "share_outside": iv.estimate,
                    "share_outside_low": iv.low,
                    "share_outside_high": iv.high,
                    "vm_min": float(np.min(m)),
                    "vm_max": float(np.max(m)),
                }
            )
        else:
            row.update(
                {
                    "share_outside": np.nan,
                    "share_outside_low": np.nan,
                    "share_outside_high": np.nan,
                    "vm_min": np.nan,
                    "vm_max": np.nan,
                }
            )
        bandrows.append(row)
    return pd.DataFrame(dist), pd.DataFrame(bandrows)
