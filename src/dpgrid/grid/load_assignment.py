"""Houses on feeder load buses: steps 1-3 of the dpkmeans AC-OPF study (Ravi et al., IEEE TSG 2022,
Sec. V-B "Standard Test Systems", Figs. 12-13).

1. sample P' houses from the true profiles, class-weighted (:func:`class_counts`: each cluster gets
   its population share of P', largest-remainder rounding; houses drawn without replacement within
   a cluster). P' is the number of load buses used (:func:`select_load_buses`);
2. draw the same number of synthetic profiles per cluster (:func:`draw_matched`); bus p gets the true
   house p and a synthetic profile of the same cluster. Further independent class-matched samples of
   true houses ("reference1", ...) give the distance two samples of real houses have;
3. scale the profiles of each bus by a multiplier fixed from the true sample (:func:`bus_multipliers`).
"""

from __future__ import annotations

import logging
import re

import numpy as np
import pandas as pd

from dpgrid.core.io import read_table
from dpgrid.data.profiles import PROFILE_HOURS as HOUR_COLUMNS

LOG = logging.getLogger(__name__)


def profile_sets(n_reference: int) -> list[str]:
    """Names of the profile sets: true, synthetic, reference1..reference<n_reference>."""
    if n_reference < 1:
        raise ValueError(f"grid.experiment.n_reference_draws must be >= 1, got {n_reference}")
    return ["true", "synthetic"] + [f"reference{r}" for r in range(1, n_reference + 1)]


def set_order(name: str) -> int:
    if name == "true":
        return 0
    if name == "synthetic":
        return 1
    m = re.fullmatch(r"reference(\d+)", name)
    if not m:
        raise ValueError(f"unknown profile set {name!r}")
    return 1 + int(m.group(1))


def read_profiles(path) -> pd.DataFrame:
    """Read a profile table (profile_id, cluster, h00..h24 in kW) and validate it.

    Values must be finite; negative values (net generation, or noise in a synthetic profile) are
    allowed and logged.
    """
    df = read_table(path, dtype={"profile_id": str})
    missing = [c for c in ["profile_id", "cluster", *HOUR_COLUMNS] if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}")
    if df.empty:
        raise ValueError(f"{path}: no profiles")
    if df["profile_id"].duplicated().any():
        dup = df.loc[df["profile_id"].duplicated(), "profile_id"].iloc[0]
        raise ValueError(f"{path}: field 'profile_id' has duplicate value {dup!r}")
    cl = pd.to_numeric(df["cluster"], errors="coerce")
    if cl.isna().any() or (cl != np.round(cl)).any():
        bad = df.loc[cl.isna() | (cl != np.round(cl)), "cluster"].iloc[0]
        raise ValueError(f"{path}: field 'cluster' has non-integer value {bad!r}")
    df["cluster"] = cl.astype(int)
    vals = df[HOUR_COLUMNS].apply(pd.to_numeric, errors="coerce")
    bad = ~np.isfinite(vals.to_numpy(float))
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(
            f"{path}: field {HOUR_COLUMNS[j]!r} of profile {df['profile_id'].iloc[i]!r} has "
            f"value {df[HOUR_COLUMNS[j]].iloc[i]!r} (need a finite kW value)"
        )
    df[HOUR_COLUMNS] = vals.astype(float)
    neg = float((vals.to_numpy(float) < 0).mean())
    if neg > 0:
        # A negative value is net generation at the bus; the OPF takes it as a negative load.
        LOG.warning("%s: %.1f %% of the hourly values are negative (net generation)", path, 100 * neg)
    return df


def class_counts(clusters, n: int) -> dict[int, int]:
    """Class-weighted allocation of ``n`` draws: n_k proportional to cluster size, largest remainder.

    ``sum(n_k) == n`` and ``floor(n N_k / N) <= n_k <= ceil(n N_k / N)`` (paper Sec. V-B, step 1: "the
    six classes are weighed according to their population"). Ties in the remainder go to the larger
    cluster, then the smaller label, so the allocation is deterministic.
    """
    sizes = pd.Series(clusters).value_counts().sort_index()
    total = int(sizes.sum())
    if not 0 < n <= total:
        raise ValueError(f"cannot sample {n} houses from {total} profiles (P' must be in 1..{total})")
    quota = n * sizes.to_numpy(float) / total
    base = np.floor(quota).astype(int)
    rem = quota - base
    order = sorted(range(len(sizes)), key=lambda i: (-round(rem[i], 12), -sizes.iloc[i], sizes.index[i]))
    for i in order[: n - int(base.sum())]:
        base[i] += 1
    return {int(k): int(v) for k, v in zip(sizes.index, base)}


def draw_matched(profiles: pd.DataFrame, clusters_needed, rng: np.random.Generator, *, source: str) -> pd.DataFrame:
    """For each entry of ``clusters_needed`` draw one profile of that cluster (without replacement).

    Returns the drawn rows in the order of ``clusters_needed``.
    """
    clusters_needed = np.asarray(clusters_needed, dtype=int)
    out = np.empty(len(clusters_needed), dtype=int)
    for k in np.unique(clusters_needed):
        pos = np.flatnonzero(clusters_needed == k)
        pool = np.flatnonzero(profiles["cluster"].to_numpy() == k)
        if len(pool) < len(pos):
            raise ValueError(f"{source}: cluster {k} has {len(pool)} profile(s), {len(pos)} needed")
        out[pos] = rng.choice(pool, size=len(pos), replace=False)
    return profiles.iloc[out].reset_index(drop=True)


def sample_houses(
    true: pd.DataFrame, synthetic: pd.DataFrame, n_buses: int, rng: np.random.Generator, n_reference: int = 1
) -> dict:
    """Steps 1-2: class-weighted true sample, matched synthetic sample, independent reference samples.

    Returns ``{"true", "synthetic", "reference1", ...}`` -> frames of ``n_buses`` rows; row p goes to
    load bus p. The clusters of all frames agree row by row.
    """
    counts = class_counts(true["cluster"], n_buses)
    clusters = np.repeat(list(counts), list(counts.values()))
    clusters = clusters[rng.permutation(len(clusters))]  # random placement of houses on buses
    out = {
        "true": draw_matched(true, clusters, rng, source="true profiles"),
        "synthetic": draw_matched(synthetic, clusters, rng, source="synthetic profiles"),
    }
    for name in profile_sets(n_reference)[2:]:
        out[name] = draw_matched(true, clusters, rng, source=f"true profiles ({name} sample)")
    return out


def bus_multipliers(true_kw: np.ndarray, base_p_mw: np.ndarray, rule: str) -> np.ndarray:
    """MW-per-kW multiplier of each load bus, from the true sample (rows = buses, columns = hours).

    The same multipliers are applied to the synthetic and reference profiles of the bus, so every
    difference in load between the runs comes from the profiles. With base-case bus loads ``b_p``
    (total ``B``) and true profiles ``x_{p,t}`` (kW):

    - ``none``: m_p = 1e-3 (the paper's literal step 3: the house's kW are the bus load, in MW);
    - ``uniform_peak``: m_p = B / max_t sum_p x_{p,t} (one factor; the true aggregate peak equals B);
    - ``uniform_mean``: m_p = B / mean_t sum_p x_{p,t};
    - ``bus_weighted_peak``: m_p = b_p / c with c = max_t sum_p b_p x_{p,t} / B: each house is scaled
      by its bus's base load (large loads where the feeder was designed for them) and the true
      aggregate peak again equals B.
    """
    x = np.asarray(true_kw, dtype=float)
    b = np.asarray(base_p_mw, dtype=float)
    if x.ndim != 2 or b.shape != (x.shape[0],):
        raise ValueError(
            f"bus_multipliers: need (bus, hour) profiles and one base load per bus, got {x.shape}, {b.shape}"
        )
    total = float(b.sum())
    if not total > 0:
        raise ValueError("feeder base load must be positive")
    if rule == "none":
        return np.full(len(b), 1e-3)
    if rule in ("uniform_peak", "uniform_mean"):
        agg = x.sum(axis=0)
        level = agg.max() if rule == "uniform_peak" else agg.mean()
        if not level > 0:
            raise ValueError("true sample has zero aggregate load; cannot scale")
        return np.full(len(b), total / level)
    if rule == "bus_weighted_peak":
        if np.any(b <= 0):
            raise ValueError(
                "grid.experiment.scaling 'bus_weighted_peak' needs a base load on every load bus "
                "(use load_buses: loaded)"
            )
        c = float((b[:, None] * x).sum(axis=0).max()) / total
        if not c > 0:
            raise ValueError("true sample has zero aggregate load; cannot scale")
        return b / c
    raise ValueError(
        f"grid.experiment.scaling: unknown rule {rule!r} "
        "(use 'none', 'uniform_peak', 'uniform_mean' or 'bus_weighted_peak')"
    )


def base_bus_loads(net, buses) -> np.ndarray:
    """Base-case active load (MW) summed per bus, for ``buses`` (0 where a bus has none)."""
    per_bus = net.load[net.load.in_service].groupby("bus")["p_mw"].sum()
    return per_bus.reindex(np.asarray(buses, dtype=int), fill_value=0.0).to_numpy(float)


def select_load_buses(net, rule: str) -> np.ndarray:
    """The buses that receive a house: ``loaded`` (buses with a base-case load) or ``all_nonslack``."""
    if rule == "loaded":
        from dpgrid.grid.opf import load_buses

        return load_buses(net)
    if rule == "all_nonslack":
        slack = set(net.ext_grid.bus.astype(int))
        return np.array([b for b in net.bus.index.astype(int) if b not in slack], dtype=int)
    raise ValueError(f"grid.experiment.load_buses: unknown rule {rule!r} (use 'loaded' or 'all_nonslack')")
