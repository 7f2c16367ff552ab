"""Adjacency calibration (SpDP eqs. 12-13, Sec. II-A D(K)) against brute-force computations."""

import itertools

import numpy as np
import pytest

from dpgrid.mechanisms.spectral_adjacency import (
    AdjacencyError,
    b_spdp,
    b_trdp,
    consecutive_distance,
    psd_windows,
    trajectory_blocks,
)
from dpgrid.models.psd import PSDEstimator


def test_b_trdp_is_max_over_non_overlapping_blocks_brute_force():
    rng = np.random.default_rng(0)
    x = rng.gamma(2.0, 0.5, 1000)
    k = 48
    blocks = [x[i * k : (i + 1) * k] for i in range(len(x) // k)]
    brute = max(np.linalg.norm(a - b) for a, b in itertools.combinations(blocks, 2))
    assert b_trdp(x, k) == pytest.approx(brute)
    assert trajectory_blocks(x, k).shape == (20, 48)
    with pytest.raises(AdjacencyError, match="two non-overlapping"):
        b_trdp(x[:60], 48)


def test_b_trdp_grows_like_sqrt_k_for_iid_data():
    """For i.i.d. data the distance between K-blocks grows as sqrt(K) (the paper's Fig. 1b argument)."""
    x = np.random.default_rng(1).standard_normal(200_000)
    d1, d4 = consecutive_distance(x, 10_000), consecutive_distance(x, 40_000)
    assert d4 / d1 == pytest.approx(2.0, rel=0.05)
    assert consecutive_distance(np.arange(4.0), 2) == pytest.approx(np.sqrt(8.0))


def test_b_spdp_is_max_pairwise_psd_distance_brute_force():
    rng = np.random.default_rng(2)
    est = PSDEstimator(n_points=16, fs_per_hour=12.0)
    x = rng.standard_normal(1200) * np.repeat([1.0, 1.5, 0.7], 400)
    lengths, step = [300, 500], 100
    sa = b_spdp(x, est, lengths=lengths, step=step)
    wins = psd_windows(x.size, lengths, step)
    assert wins == sa.windows and (0, 300) in wins and (700, 500) in wins and (800, 500) not in wins
    psds = [est.estimate(x[s : s + n]) for s, n in wins]
    brute = max(np.linalg.norm(a - b) for a, b in itertools.combinations(psds, 2))
    assert sa.b == pytest.approx(brute)
    i, j = sa.argmax
    assert np.linalg.norm(psds[i] - psds[j]) == pytest.approx(brute)


def test_b_spdp_needs_two_windows():
    est = PSDEstimator(n_points=16, fs_per_hour=12.0)
    with pytest.raises(AdjacencyError, match="at least two PSD windows"):
        b_spdp(np.ones(100), est, lengths=[100], step=100)
