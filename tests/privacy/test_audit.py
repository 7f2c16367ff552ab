"""The tail-audit row (dpgrid.privacy.audit.tail_audit_row): its columns, the Clopper-Pearson interval against
scipy's beta quantiles, the one-sided ``claimed_delta_ge_ci_low`` and the two-sided ``exact_in_ci``."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpgrid.privacy.audit import TAIL_AUDIT_COLUMNS, tail_audit_row
from dpgrid.privacy.clopper_pearson import clopper_pearson


def _row(count=30, samples=1000, level=0.99, claimed=0.03, exact=0.03, **context):
    return tail_audit_row(
        epsilon=0.5, claimed_delta=claimed, exact_delta=exact, count=count, samples=samples, level=level, **context
    )


def test_columns_are_the_context_in_order_then_the_schema():
    row = _row(setting="s", mechanism="m", pair="p")
    assert list(row) == ["setting", "mechanism", "pair", *TAIL_AUDIT_COLUMNS]
    assert list(_row()) == list(TAIL_AUDIT_COLUMNS)
    assert (row["epsilon"], row["samples"], row["level"]) == (0.5, 1000, 0.99)


@settings(max_examples=60, deadline=None)
@given(
    samples=st.integers(1, 10**6),
    frac=st.floats(0, 1),
    level=st.floats(0.5, 0.99999),
)
def test_interval_is_the_beta_quantiles_and_contains_the_estimate(samples, frac, level):
    """ci_low = Beta(alpha/2; k, n-k+1) quantile (0 at k = 0), ci_high = Beta(1-alpha/2; k+1, n-k) (1 at k = n)."""
    k = round(frac * samples)
    row = _row(count=k, samples=samples, level=level)
    alpha = 1 - level
    lo = 0.0 if k == 0 else stats.beta(k, samples - k + 1).ppf(alpha / 2)
    hi = 1.0 if k == samples else stats.beta(k + 1, samples - k).ppf(1 - alpha / 2)
    assert row["ci_low"] == pytest.approx(lo, rel=1e-9, abs=1e-300)
    assert row["ci_high"] == pytest.approx(hi, rel=1e-9, abs=1e-300)
    assert row["empirical_delta"] == k / samples
    assert row["ci_low"] <= row["empirical_delta"] <= row["ci_high"]


def test_interval_is_bit_identical_to_clopper_pearson():
    """The writers' numbers did not move: the row's interval is clopper_pearson's at the given level, bit for bit
    (dpkmeans passes level = 1 - alpha_per_test)."""
    for k, n, level in ((0, 500, 0.999), (1, 20000, 1.0 - 1e-4), (19999, 20000, 0.999), (500, 500, 0.9999)):
        lo, hi = clopper_pearson(k, n, level)
        row = _row(count=k, samples=n, level=level)
        assert (row["ci_low"], row["ci_high"]) == (float(lo), float(hi))


@settings(max_examples=60, deadline=None)
@given(k=st.integers(0, 2000), shift=st.floats(-0.05, 0.05))
def test_claimed_delta_ge_ci_low_is_one_sided_and_flips_exactly_at_ci_low(k, shift):
    """claimed_delta_ge_ci_low = ci_low <= claimed: a claim above the interval is never refuted, one just below ci_low is."""
    base = _row(count=k, samples=2000, level=0.999)
    lo = base["ci_low"]
    claimed = min(max(lo + shift, 0.0), 1.0)
    assert _row(count=k, samples=2000, level=0.999, claimed=claimed)["claimed_delta_ge_ci_low"] == (lo <= claimed)
    assert _row(count=k, samples=2000, level=0.999, claimed=lo)["claimed_delta_ge_ci_low"]
    assert _row(count=k, samples=2000, level=0.999, claimed=1.0)[
        "claimed_delta_ge_ci_low"
    ]  # above ci_high: still private
    if lo > 0:
        assert not _row(count=k, samples=2000, level=0.999, claimed=np.nextafter(lo, 0))["claimed_delta_ge_ci_low"]


@settings(max_examples=60, deadline=None)
@given(k=st.integers(0, 2000), exact=st.floats(0, 1))
def test_exact_in_ci_is_two_sided(k, exact):
    row = _row(count=k, samples=2000, level=0.999, exact=exact)
    assert row["exact_in_ci"] == (row["ci_low"] <= exact <= row["ci_high"])
    if row["ci_high"] < 1:
        assert not _row(count=k, samples=2000, level=0.999, exact=np.nextafter(row["ci_high"], 1))["exact_in_ci"]


def test_no_exact_delta_leaves_exact_in_ci_empty():
    for missing in (None, math.nan):
        row = _row(exact=missing)
        assert row["exact_delta"] is None and row["exact_in_ci"] is None
        assert row["claimed_delta_ge_ci_low"]  # the privacy test needs only the claim


def test_one_sided_test_rejects_a_true_claim_at_most_at_half_the_level():
    """Coverage: with the true tail p as the claim, Pr(ci_low > p) <= (1 - level) / 2, from the exact binomial law."""
    n, level = 400, 0.9
    for p in (0.01, 0.2, 0.5):
        ks = np.arange(n + 1)
        refuted = np.array(
            [not _row(count=int(k), samples=n, level=level, claimed=p)["claimed_delta_ge_ci_low"] for k in ks]
        )
        assert stats.binom.pmf(ks[refuted], n, p).sum() <= (1 - level) / 2 + 1e-12


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"count": 5, "samples": 0}, "count"),
        ({"count": 11, "samples": 10}, "count"),
        ({"count": -1}, "count"),
        ({"level": 1.0}, "level"),
        ({"ci_low": 0.0}, "audit columns"),  # a context column may not shadow the schema
    ],
)
def test_bad_input_is_refused_naming_the_field(kw, match):
    with pytest.raises(ValueError, match=match):
        _row(**kw)
