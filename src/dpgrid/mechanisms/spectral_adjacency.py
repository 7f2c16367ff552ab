"""Data-based calibration of the adjacency parameters of SpDP and TrDP (Parker, Hale, Barooah, Sec. IV-A).

- B_SpDP = max_{i,j} ||phi_i - phi_j||_2 over PSD estimates from windows of the same home's data
  (eq. 12); the paper uses windows of 7 to 12 weeks.
- B_TrDP(K) = max_{l,m} ||d^(l)_{1:K} - d^(m)_{1:K}||_2 over non-overlapping K-sample trajectories
  (eq. 13); the trajectories are the consecutive blocks of a partition of the series into K-blocks.
- D(K) = ||d_{1:K} - d_{K+1:2K}||_2 (Sec. II-A, Fig. 1b), the distance between consecutive windows.

Pairwise distances use scipy.spatial.distance.pdist.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpgrid.models.psd import PSDEstimator


class AdjacencyError(ValueError):
    """Data too short for the requested calibration."""


@dataclass
class SpectralAdjacency:
    """B_SpDP and the windows it was computed from."""

    b: float
    windows: list[tuple[int, int]]  # (start sample, length in samples) of each PSD window
    psds: np.ndarray  # (n_windows, N + 1)
    argmax: tuple[int, int]  # the pair of windows at distance b


def psd_windows(n_samples: int, lengths, step: int) -> list[tuple[int, int]]:
    """All windows (start, length) with length in ``lengths`` and starts 0, step, 2 step, ... fitting in the data."""
    out = []
    for length in lengths:
        if length > n_samples:
            continue
        out.extend((s, int(length)) for s in range(0, n_samples - int(length) + 1, int(step)))
    return out


def b_spdp(x, estimator: PSDEstimator, *, lengths, step: int) -> SpectralAdjacency:
    """Eq. (12): the largest L2 distance between PSD estimates of windows of the given lengths (samples)."""
    from scipy.spatial.distance import pdist

    x = np.asarray(x, dtype=float)
    windows = psd_windows(x.size, lengths, step)
    if len(windows) < 2:
        raise AdjacencyError(
            f"B_SpDP needs at least two PSD windows; {x.size} samples give {len(windows)} "
            f"window(s) of length(s) {list(lengths)} samples (the data must cover the longest window)"
        )
    psds = np.vstack([estimator.estimate(x[s : s + n], name=f"window at sample {s}") for s, n in windows])
    d = pdist(psds)
    k = int(np.argmax(d))
    rows, cols = np.triu_indices(len(windows), 1)  # pdist's condensed order
    return SpectralAdjacency(float(d[k]), windows, psds, (int(rows[k]), int(cols[k])))


def trajectory_blocks(x, k: int) -> np.ndarray:
    """The series cut into consecutive non-overlapping K-sample blocks (rows); a partial tail is dropped."""
    x = np.asarray(x, dtype=float)
    n = x.size // int(k)
    if n < 2:
        raise AdjacencyError(f"B_TrDP(K = {k}) needs two non-overlapping trajectories; the data has {x.size} samples")
    return x[: n * k].reshape(n, k)


def b_trdp(x, k: int) -> float:
    """Eq. (13): the largest L2 distance between two non-overlapping K-sample trajectories."""
    from scipy.spatial.distance import pdist

    return float(pdist(trajectory_blocks(x, k)).max())


def trajectory_distance_quantiles(x, k: int, qs=(0.0, 0.5, 1.0)) -> np.ndarray:
    """Quantiles of the pairwise distances between non-overlapping K-blocks (diagnostics next to the max)."""
    from scipy.spatial.distance import pdist

    return np.quantile(pdist(trajectory_blocks(x, k)), qs)


def consecutive_distance(x, k: int) -> float:
    """D(K) = ||d_{1:K} - d_{K+1:2K}||_2 (Sec. II-A)."""
    x = np.asarray(x, dtype=float)
    if 2 * k > x.size:
        raise AdjacencyError(f"D(K = {k}) needs 2K = {2 * k} samples; the data has {x.size}")
    return float(np.linalg.norm(x[:k] - x[k : 2 * k]))


# --------------------------------------------------------------------------- readings of eqs. (12)-(13)
#
# The paper's printed B values (B_SpDP = 0.12 kW^2 h; B_TrDP = 0.2 kW at 4 h, 39 kW at 1 week) cannot all
# come from eq. (13)'s max over every pair of K-trajectories of a year for a home with std 1.74 kW (see
# :func:`trdp_max_lower_bound`). The functions below compute the other readings the text allows, so that
# the fidelity sweep (workflow/papers/spdp/spdp.md, "Why B differs") can test which one reproduces the printed numbers.

#: Readings of eq. (13): which pairs of non-overlapping K-sample trajectories, and which statistic.
TRDP_READINGS = ("max_all_pairs", "max_consecutive", "first_pair", "min_all_pairs", "median_all_pairs", "rms_all_pairs")


def b_trdp_reading(x, k: int, reading: str) -> float:
    """B_TrDP(K) under one reading of eq. (13) (trajectories = consecutive K-blocks of the series).

    - ``max_all_pairs``: eq. (13) as written (max over every pair; :func:`b_trdp`);
    - ``max_consecutive``: max over pairs of neighbouring blocks (d_{iK+1:(i+1)K} vs the next block);
    - ``first_pair``: D(K) = ||d_{1:K} - d_{K+1:2K}|| of Sec. II-A / Fig. 1b;
    - ``min_all_pairs`` / ``median_all_pairs``: the smallest / median pairwise distance;
    - ``rms_all_pairs``: sqrt of the mean squared distance over distinct pairs (exact identity, no pdist:
      :func:`mean_pairwise_sq_distance`).
    """
    from scipy.spatial.distance import pdist

    blocks = trajectory_blocks(x, k)
    if reading == "max_all_pairs":
        return float(pdist(blocks).max())
    if reading == "max_consecutive":
        return float(np.linalg.norm(np.diff(blocks, axis=0), axis=1).max())
    if reading == "first_pair":
        return float(np.linalg.norm(blocks[0] - blocks[1]))
    if reading == "min_all_pairs":
        from scipy.spatial import cKDTree

        d, _ = cKDTree(blocks).query(blocks, k=2)
        return float(d[:, 1].min())
    if reading == "median_all_pairs":
        return float(np.median(pdist(blocks)))
    if reading == "rms_all_pairs":
        return float(np.sqrt(mean_pairwise_sq_distance(blocks)))
    raise AdjacencyError(f"unknown B_TrDP reading {reading!r}; use one of {TRDP_READINGS}")


def mean_pairwise_sq_distance(blocks) -> float:
    """Mean of ||b_l - b_m||^2 over distinct pairs l != m of the rows of ``blocks``, in closed form.

    Identity: (1 / (n (n-1))) sum_{l != m} ||b_l - b_m||^2 = 2 n / (n - 1) * sum_k Var_l(b_l[k]),
    Var the population variance over the n rows at position k.
    """
    b = np.asarray(blocks, dtype=float)
    n = b.shape[0]
    if n < 2:
        raise AdjacencyError("need at least two trajectories")
    return float(2.0 * n / (n - 1) * b.var(axis=0).sum())


def trdp_max_lower_bound(std: float, k: int, profile_share: float = 0.0) -> float:
    """Lower bound on eq. (13)'s max from the home's standard deviation alone.

    For a series cut into n K-blocks, sum_k Var_l(b_l[k]) = K (sigma^2 - sigma_p^2), where sigma_p^2 is the
    variance (over positions k) of the mean block profile m_k, written as ``profile_share`` * sigma^2.
    The max over pairs is at least the root-mean-square over pairs (:func:`mean_pairwise_sq_distance`),
    so B_TrDP(K) >= sigma sqrt(2 K (1 - profile_share)) (the factor n / (n - 1) >= 1 dropped).
    """
    if not (0.0 <= profile_share <= 1.0):
        raise AdjacencyError(f"profile_share must lie in [0, 1], got {profile_share!r}")
    return float(std * np.sqrt(2.0 * k * (1.0 - profile_share)))


def required_profile_share(b: float, std: float, k: int) -> float:
    """Smallest share of the variance the mean K-block profile must explain for eq. (13)'s max to be ``b``.

    Inverts :func:`trdp_max_lower_bound`: 1 - b^2 / (2 K sigma^2) (0 if ``b`` is above the i.i.d. level).
    """
    return float(max(0.0, 1.0 - b * b / (2.0 * k * std * std)))


def block_profile_share(x, k: int) -> float:
    """sigma_p^2 / sigma^2 of a series: the variance share of its mean K-block profile (see above)."""
    b = trajectory_blocks(x, k)
    return float(b.mean(axis=0).var() / b.var())


def first_pair_distances(x, k: int, offsets) -> np.ndarray:
    """D(K) if the data had started at each sample offset: ||x[o:o+K] - x[o+K:o+2K]|| for o in ``offsets``."""
    x = np.asarray(x, dtype=float)
    out = []
    for o in offsets:
        o = int(o)
        if o < 0 or o + 2 * k > x.size:
            raise AdjacencyError(f"offset {o} + 2K = {2 * k} runs past the data ({x.size} samples)")
        out.append(float(np.linalg.norm(x[o : o + k] - x[o + k : o + 2 * k])))
    return np.asarray(out)


#: Readings of eq. (12): which PSD windows enter the max.
SPDP_READINGS = ("sliding", "nested", "consecutive", "first_span")


def b_spdp_reading(x, estimator: PSDEstimator, *, lengths, step: int, reading: str) -> float:
    """B_SpDP under one reading of eq. (12) (``lengths`` in samples, e.g. 7..12 weeks).

    - ``sliding``: every window of every length starting every ``step`` samples (:func:`b_spdp`);
    - ``nested``: the windows d_{1:L} for each L in ``lengths`` (all from the start of the data);
    - ``consecutive``: max over L of ||phi(d_{1:L}) - phi(d_{L+1:2L})|| (the pairs of Fig. 3);
    - ``first_span``: ``sliding`` restricted to the first max(lengths) samples.
    """
    from scipy.spatial.distance import pdist

    x = np.asarray(x, dtype=float)
    lengths = [int(v) for v in lengths]
    if reading == "sliding":
        return b_spdp(x, estimator, lengths=lengths, step=step).b
    if reading == "first_span":
        return b_spdp(x[: max(lengths)], estimator, lengths=lengths, step=step).b
    if reading == "nested":
        if max(lengths) > x.size or len(lengths) < 2:
            raise AdjacencyError(f"nested B_SpDP needs two or more lengths within {x.size} samples, got {lengths}")
        return float(pdist(np.vstack([estimator.estimate(x[:n]) for n in lengths])).max())
    if reading == "consecutive":
        if 2 * max(lengths) > x.size:
            raise AdjacencyError(f"consecutive B_SpDP needs 2 x {max(lengths)} samples; the data has {x.size}")
        return float(max(np.linalg.norm(estimator.estimate(x[:n]) - estimator.estimate(x[n : 2 * n])) for n in lengths))
    raise AdjacencyError(f"unknown B_SpDP reading {reading!r}; use one of {SPDP_READINGS}")
