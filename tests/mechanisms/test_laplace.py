"""The Laplace mechanism: calibration b = Delta_1 / eps checked from its draws (a sampler test), validation."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpgrid.mechanisms.laplace import laplace_release, laplace_scale, standard_laplace


@settings(max_examples=20, deadline=None)
@given(
    sens=st.floats(0.01, 100.0),
    eps=st.floats(0.01, 10.0),
    shape=st.sampled_from([(50_000,), (200, 250), (10, 50, 100)]),
    seed=st.integers(0, 2**32 - 1),
)
def test_release_noise_is_laplace_with_the_calibrated_scale(sens, eps, shape, seed):
    """The noise of a release, as samples: E|noise| = b for Lap(b) (sd b / sqrt(n)), so the mean absolute noise is
    within 5 standard errors of Delta_1 / eps; and the standardised noise passes a KS test against Lap(1). A
    miscalibrated release (b off by 10 %) fails the first check at these sizes (0.1 b vs 5 b / sqrt(5e4) = 0.022 b).
    """
    value = np.linspace(-3.0, 7.0, math.prod(shape)).reshape(shape)
    out = laplace_release(value, sens, eps, np.random.default_rng(seed))
    assert out.shape == value.shape
    noise = (out - value).ravel()
    b = sens / eps
    assert abs(np.mean(np.abs(noise)) - b) <= 5.0 * b / math.sqrt(noise.size)
    assert stats.kstest(noise / b, stats.laplace.cdf).pvalue > 1e-4


def test_pure_dp_density_ratio_is_bounded_by_eps():
    """Neighbouring queries q and q + Delta_1 e_1: the log density ratio of the released vectors, computed from the
    Laplace density with the scale the mechanism uses, never exceeds eps and reaches it (Dwork and Roth, Thm. 3.6)."""
    eps, sens = 0.7, 2.0
    b = laplace_scale(sens, eps)
    x = np.linspace(-20.0, 20.0, 4001)
    ratio = stats.laplace.logpdf(x, 0.0, b) - stats.laplace.logpdf(x, sens, b)
    assert ratio.max() <= eps + 1e-12 and ratio.max() >= eps - 1e-12


@pytest.mark.parametrize(
    "sens, eps, match",
    [
        (1.0, 0.0, "epsilon"),
        (1.0, -1.0, "epsilon"),
        (1.0, math.inf, "epsilon"),
        (1.0, math.nan, "epsilon"),
        (-1.0, 1.0, "sensitivity"),
        (math.nan, 1.0, "sensitivity"),
        (math.inf, 1.0, "sensitivity"),
    ],
)
def test_bad_parameters_are_named(sens, eps, match):
    with pytest.raises(ValueError, match=match):
        laplace_release(np.zeros(3), sens, eps, np.random.default_rng(0))


def test_zero_sensitivity_releases_the_value():
    v = np.arange(5.0)
    assert np.array_equal(laplace_release(v, 0.0, 1.0, np.random.default_rng(0)), v)


def test_standard_laplace_is_unit_scale():
    """Unit-scale draws: E|W| = 1 within 5 standard errors, shape as asked."""
    w = standard_laplace(np.random.default_rng(3), (400, 250))
    assert w.shape == (400, 250)
    assert abs(np.mean(np.abs(w)) - 1.0) <= 5.0 / math.sqrt(w.size)
