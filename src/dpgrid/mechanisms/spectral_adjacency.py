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
from scipy.spatial.distance import pdist

from dpgrid.models.psd import PSDEstimator


class AdjacencyError(ValueError):
    """Data too short for the requested calibration."""


@dataclass
class SpectralAdjacency:
    """B_SpDP and the windows it was computed from."""

    b: float
    windows: list[tuple[int, int]]   # (start sample, length in samples) of each PSD window
    psds: np.ndarray                 # (n_windows, N + 1)
    argmax: tuple[int, int]          # the pair of windows at distance b


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
    x = np.asarray(x, dtype=float)
    windows = psd_windows(x.size, lengths, step)
    if len(windows) < 2:
        raise AdjacencyError(f"B_SpDP needs at least two PSD windows; {x.size} samples give {len(windows)} "
                             f"window(s) of length(s) {list(lengths)} samples (the data must cover the longest window)")
    psds = np.vstack([estimator.estimate(x[s:s + n], name=f"window at sample {s}") for s, n in windows])
    d = pdist(psds)
    k = int(np.argmax(d))
    rows, cols = np.triu_indices(len(windows), 1)          # pdist's condensed order
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
    return float(pdist(trajectory_blocks(x, k)).max())


def trajectory_distance_quantiles(x, k: int, qs=(0.0, 0.5, 1.0)) -> np.ndarray:
    """Quantiles of the pairwise distances between non-overlapping K-blocks (diagnostics next to the max)."""
    return np.quantile(pdist(trajectory_blocks(x, k)), qs)


def consecutive_distance(x, k: int) -> float:
    """D(K) = ||d_{1:K} - d_{K+1:2K}||_2 (Sec. II-A)."""
    x = np.asarray(x, dtype=float)
    if 2 * k > x.size:
        raise AdjacencyError(f"D(K = {k}) needs 2K = {2 * k} samples; the data has {x.size}")
    return float(np.linalg.norm(x[:k] - x[k:2 * k]))

