"""Clopper-Pearson bounds (dpgrid.privacy.clopper_pearson): Beta quantiles, exact coverage, and the two-sided
interval against scipy's exact binomial interval."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpgrid.privacy.clopper_pearson import clopper_pearson, cp_lower, cp_upper


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 10**6), frac=st.floats(0, 1), alpha=st.floats(1e-6, 0.5))
def test_clopper_pearson_bounds_are_beta_quantiles(n, frac, alpha):
    k = round(frac * n)
    lo = 0.0 if k == 0 else stats.beta(k, n - k + 1).ppf(alpha)
    hi = 1.0 if k == n else stats.beta(k + 1, n - k).ppf(1 - alpha)
    assert float(cp_lower(k, n, alpha)) == pytest.approx(lo, rel=1e-9, abs=1e-300)
    assert float(cp_upper(k, n, alpha)) == pytest.approx(hi, rel=1e-9, abs=1e-300)
    assert float(cp_lower(k, n, alpha)) <= k / n <= float(cp_upper(k, n, alpha))


def test_clopper_pearson_coverage():
    """The one-sided bounds cover the true p with probability >= 1 - alpha (exact binomial sum)."""
    n, alpha = 200, 0.05
    for p in (0.01, 0.1, 0.37, 0.9):
        k = np.arange(n + 1)
        pmf = stats.binom.pmf(k, n, p)
        assert pmf[cp_lower(k, n, alpha) > p].sum() <= alpha + 1e-12
        assert pmf[cp_upper(k, n, alpha) < p].sum() <= alpha + 1e-12


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 10**5), frac=st.floats(0, 1), level=st.floats(0.5, 0.99999))
def test_two_sided_interval_is_scipys_exact_interval(n, frac, level):
    """The two-sided interval at ``level`` is scipy's exact (Clopper-Pearson) interval of binomtest."""
    k = round(frac * n)
    lo, hi = clopper_pearson(k, n, level)
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="exact")
    assert float(lo) == pytest.approx(ci.low, rel=1e-8, abs=1e-300)
    assert float(hi) == pytest.approx(ci.high, rel=1e-8, abs=1e-300)
