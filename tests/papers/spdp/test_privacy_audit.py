"""The spdp black-box audit's neighbour relation (dpgrid.papers.spdp.privacy_audit): the brute-force farthest pair,
and TrDP releases that hold at their calibration and are violated with B under-reported."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.spatial.distance import pdist

from dpgrid.mechanisms.trajectory_gaussian import TrajectoryGaussianMechanism
from dpgrid.papers.spdp import privacy_audit as pa
from dpgrid.privacy import blackbox_audit as ba


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(2, 12), st.integers(1, 6)), elements=st.floats(-1e3, 1e3)))
def test_max_pair_is_the_largest_pairwise_distance(rows):
    b, i, j = pa._max_pair(rows)
    assert np.isclose(b, pdist(rows).max(), rtol=1e-9, atol=1e-9)
    assert np.isclose(np.linalg.norm(rows[i] - rows[j]), b, rtol=1e-9, atol=1e-9)


def _trdp_row(b_claimed, b_true, rng):
    mech = TrajectoryGaussianMechanism(b_claimed, np.log(2), 0.01, calibration="proposition1")
    d0, d1 = np.zeros(8), np.full(8, b_true / np.sqrt(8))
    u = (d1 - d0) / b_true

    def proj(d):
        return lambda r, n: np.stack([mech.release(d, r) @ u for _ in range(n)])[:, None]

    cands = [ba.Candidate("pair", proj(d0), proj(d1))]
    return ba.search_and_audit(
        cands, np.log(2), pilot_samples=100, samples=40000, level=0.9999, rng=rng, fitted=("fisher",), gaussian=True
    ).pair.delta_lower_bound


def test_trdp_holds_at_its_b_and_is_violated_with_b_halved():
    assert _trdp_row(3.0, 3.0, np.random.default_rng(0)) <= 0.01
    assert _trdp_row(1.5, 3.0, np.random.default_rng(0)) > 0.01


class _PartlyNoiseless:
    """A TrDP release that adds its noise to some samples only (``keep``: the samples released exactly)."""

    def __init__(self, mech, keep):
        self.mech, self.keep = mech, keep

    def release(self, d, rng):
        out = self.mech.release(d, rng)
        out[self.keep] = d[self.keep]
        return out


def _directions_audit(mech, k, rng):
    d0 = np.zeros(k)
    audit = {"direction_samples": 400, "hill_climb_budget": 20}
    cands = []
    for _, u, w in pa._trajectory_directions(mech, d0, audit, rng):

        def proj(d, w=w):
            return lambda r, n: np.stack([mech.release(d, r) @ w for _ in range(n)])[:, None]

        cands.append(ba.Candidate("v", proj(d0), proj(d0 + 3.0 * u)))
    res = ba.search_and_audit(
        cands, np.log(2), pilot_samples=100, samples=4000, level=0.9999, rng=rng, fitted=("fisher",), gaussian=True
    )
    return res.pair.delta_lower_bound


@settings(max_examples=6, deadline=None)
@given(k=st.sampled_from([6, 600]), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_noise_missing_on_some_samples_is_found_by_the_directions(k, seed, data):
    """Short (full covariance) and long (per-sample variances) trajectories: the calibrated release holds on every
    searched direction; with any set of samples released without noise the least-variance sample finds one of
    them and the row is violated."""
    rng = np.random.default_rng(seed)
    mech = TrajectoryGaussianMechanism(3.0, np.log(2), 0.01, calibration="proposition1")
    assert _directions_audit(mech, k, rng) <= 0.01
    keep = data.draw(st.lists(st.integers(0, k - 1), min_size=1, max_size=3, unique=True))
    assert _directions_audit(_PartlyNoiseless(mech, keep), k, rng) > 0.01
