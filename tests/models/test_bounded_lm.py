"""The projected Levenberg-Marquardt method against independent solutions: scipy's bounded linear least squares
(``lsq_linear``, a convex problem with one minimum) and scipy's ``least_squares`` on a nonlinear curve fit."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import least_squares, lsq_linear

from dpgrid.models.bounded_lm import projected_levenberg_marquardt


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.integers(1, 6),
    extra=st.integers(0, 30),
    bound=st.floats(0.05, 3.0),
)
def test_bounded_linear_least_squares_matches_lsq_linear(seed, k, extra, bound):
    rng = np.random.default_rng(seed)
    m = k + extra + 1
    a = rng.normal(size=(m, k)) + np.eye(m, k)  # full column rank almost surely
    b = rng.normal(scale=3.0, size=m)
    x0 = rng.uniform(-bound, bound, size=k)
    seen = []

    def fun(x):
        seen.append(x.copy())
        return a @ x - b

    res = projected_levenberg_marquardt(fun, lambda x: a, x0, -bound, bound, ftol=1e-14, xtol=1e-14, gtol=1e-12)
    ref = lsq_linear(a, b, bounds=(-bound, bound), tol=1e-14)
    assert all(np.all(np.abs(x) <= bound) for x in seen)  # never evaluated outside the box
    assert res.cost <= 0.5 * float(np.sum((a @ np.clip(x0, -bound, bound) - b) ** 2)) + 1e-12
    assert res.cost == pytest.approx(ref.cost, rel=1e-7, abs=1e-9)
    np.testing.assert_allclose(res.x, ref.x, atol=1e-5 * max(1.0, bound))
    on_bound = np.isclose(np.abs(ref.x), bound)
    assert set(np.flatnonzero(res.active_mask)) <= set(np.flatnonzero(on_bound))


def test_nonlinear_curve_fit_matches_scipy_least_squares():
    rng = np.random.default_rng(3)
    t = np.linspace(0.0, 4.0, 200)
    y = 2.5 * np.exp(-1.3 * t) + 0.4 + rng.normal(scale=0.02, size=t.size)

    def fun(x):
        return x[0] * np.exp(-x[1] * t) + x[2] - y

    def jac(x):
        e = np.exp(-x[1] * t)
        return np.column_stack([e, -x[0] * t * e, np.ones_like(t)])

    res = projected_levenberg_marquardt(fun, jac, np.array([1.0, 0.5, 0.0]), -5.0, 5.0, ftol=1e-15, xtol=1e-15)
    ref = least_squares(fun, [1.0, 0.5, 0.0], jac=jac, bounds=(-5.0, 5.0), ftol=1e-15, xtol=1e-15, gtol=1e-15)
    assert res.status > 0 and res.message.endswith("satisfied")
    np.testing.assert_allclose(res.x, ref.x, rtol=1e-7)


def test_evaluation_budget_is_respected_and_reported():
    a = np.vander(np.linspace(-1, 1, 40), 6)
    res = projected_levenberg_marquardt(lambda x: a @ x - 1.0, lambda x: a, np.full(6, 0.9), -1.0, 1.0, max_nfev=2)
    assert res.nfev <= 2 and res.status in (0, 1, 2, 3)
    with pytest.raises(ValueError, match="lb < ub"):
        projected_levenberg_marquardt(lambda x: x, lambda x: np.eye(1), np.zeros(1), 1.0, 1.0)
