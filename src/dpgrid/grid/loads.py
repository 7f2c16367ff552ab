"""Physically plausible bus loads from differentially private synthetic daily profiles.

Ravi et al. (IEEE TSG 2022), Sec. V-B "Standard Test Systems", step 3, set the synthetic profiles of
Algorithm 2 as bus active loads. Algorithm 2 samples ``y`` from a (DP) log-normal model of
``log(1 + x / alpha)`` and returns ``x = alpha (exp(y) - 1)`` with ``alpha = 15 kW``, so every value
in ``(-alpha, inf)`` can come out: with the default budget about 18 % of the synthetic hourly values
are negative although no true profile of the default population has a negative value (no PV
export). A negative load is net generation; on a feeder without generation it is not a plausible
house, and a large one can push the OPF into a region the true profiles never reach.

:func:`plausible_loads` applies one documented rule (config ``grid.experiment.load_rule``):

- ``none``: values as released (negative = net generation);
- ``clip``: a value below the lower bound ``lo_k`` of its cluster ``k`` is set to ``lo_k``, where
  ``lo_k = 0`` if no true profile of cluster ``k`` has a negative value (no PV export in the data),
  else the most negative true value of that cluster (negative loads stay allowed exactly where the
  data has export, down to the largest export seen);
- ``clip_range``: as ``clip``, and a value above ``hi_k``, the largest true value of cluster ``k``,
  is set to ``hi_k``.

Clipping is per value, not per profile: redrawing whole profiles is not an option because 93 % of
the default synthetic profiles have at least one negative hour (keeping the other 7 % would select
a biased sub-population). Note on privacy: the bounds come from the true profiles, so the clipped
profiles are an evaluation artefact of the grid study, not a DP release (``clip`` uses one fact
per cluster -- "any export?" -- and, only where export exists, its minimum; ``clip_range`` also the
per-cluster maximum). The share of values changed is returned so that it can be reported.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

#: Rules of :func:`plausible_loads` (config ``grid.experiment.load_rule``).
LOAD_RULES = ("none", "clip", "clip_range")


@dataclass(frozen=True)
class PlausibilityReport:
    """What :func:`plausible_loads` found and changed (shares are over all hourly values)."""

    rule: str
    n_values: int
    share_below: float  # values below their cluster's lower bound (changed unless rule 'none')
    share_above: float  # values above the cluster's true maximum (changed by 'clip_range' only)
    share_affected: float  # values the rule changed (0 for 'none')
    share_negative: float  # negative values before the rule
    share_negative_true: float  # negative values among the true profiles
    lower_kw: dict = field(default_factory=dict)  # cluster -> lower bound (kW)
    upper_kw: dict = field(default_factory=dict)  # cluster -> true maximum (kW)

    def as_dict(self) -> dict:
        return asdict(self)


def plausible_range(true_profiles: pd.DataFrame, columns) -> tuple[dict[int, float], dict[int, float]]:
    """Per-cluster lower bound (0, or the most negative true value where the cluster exports) and maximum."""
    lower, upper = {}, {}
    for k, g in true_profiles.groupby("cluster", sort=True):
        v = g[list(columns)].to_numpy(float)
        lower[int(k)] = float(min(0.0, v.min()))
        upper[int(k)] = float(v.max())
    return lower, upper


def plausible_loads(
    profiles: pd.DataFrame, true_profiles: pd.DataFrame, rule: str, *, columns
) -> tuple[pd.DataFrame, PlausibilityReport]:
    """Apply load rule ``rule`` to ``profiles`` (columns ``cluster`` and ``columns``, kW); see the module doc.

    Returns a new frame (other columns untouched) and a :class:`PlausibilityReport`. Raises
    ``ValueError`` for an unknown rule, a missing column, non-finite values, or a cluster of
    ``profiles`` that has no true profile (its bounds would be unknown).
    """
    if rule not in LOAD_RULES:
        raise ValueError(f"grid.experiment.load_rule: unknown rule {rule!r} (use one of {', '.join(LOAD_RULES)})")
    columns = list(columns)
    for name, df in (("profiles", profiles), ("true profiles", true_profiles)):
        missing = [c for c in ["cluster", *columns] if c not in df.columns]
        if missing:
            raise ValueError(f"plausible_loads: {name} lack column(s) {missing}")
        if not np.all(np.isfinite(df[columns].to_numpy(float))):
            raise ValueError(f"plausible_loads: {name} have non-finite values")
    lower, upper = plausible_range(true_profiles, columns)
    clusters = profiles["cluster"].astype(int).to_numpy()
    unknown = sorted(int(k) for k in set(clusters) - set(lower))
    if unknown:
        raise ValueError(f"plausible_loads: cluster(s) {unknown} have synthetic but no true profiles")
    x = profiles[columns].to_numpy(float)
    lo = np.array([lower[k] for k in clusters])[:, None]
    hi = np.array([upper[k] for k in clusters])[:, None]
    below, above = x < lo, x > hi
    y = x.copy()
    if rule in ("clip", "clip_range"):
        y = np.maximum(y, lo)
    if rule == "clip_range":
        y = np.minimum(y, hi)
    out = profiles.copy()
    out[columns] = y
    n = x.size
    report = PlausibilityReport(
        rule=rule,
        n_values=int(n),
        share_below=float(below.mean()),
        share_above=float(above.mean()),
        share_affected=float((y != x).mean()),
        share_negative=float((x < 0).mean()),
        share_negative_true=float((true_profiles[columns].to_numpy(float) < 0).mean()),
        lower_kw=lower,
        upper_kw=upper,
    )
    return out, report
