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
