"""Claim verdicts over seeds (dpgrid.core.claims_over_seeds): the Clopper-Pearson bounds, the rule, the table."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpgrid.core.claims import Claim, read_claims, write_claims
from dpgrid.core.claims_over_seeds import (
    SEED_DEPENDENT,
    ClaimsOverSeedsError,
    claims_over_seeds,
    cp_bounds,
    main,
    seed_verdict,
)


@given(st.integers(1, 200).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_bounds_are_the_binomial_tails_at_the_confidence(kn):
    """Independent check: Pr(X >= k | lower) = 0.1 and Pr(X <= k | upper) = 0.1 (scipy's binomial distribution),
    and lower <= k / n <= upper."""
    k, n = kn
    lower, upper = cp_bounds(k, n)
    assert lower <= k / n <= upper
    if k > 0:
        assert stats.binom.sf(k - 1, n, lower) == pytest.approx(0.1, abs=1e-9)
    else:
        assert lower == 0.0
    if k < n:
        assert stats.binom.cdf(k, n, upper) == pytest.approx(0.1, abs=1e-9)
    else:
        assert upper == 1.0


def test_all_reproduced_needs_eleven_replicates():
    assert seed_verdict(["reproduced"] * 10) == SEED_DEPENDENT
    assert seed_verdict(["reproduced"] * 11) == "reproduced"
    assert seed_verdict(["differs"] * 11) == "differs"
    assert seed_verdict(["reproduced"] * 2 + ["differs"]) == SEED_DEPENDENT


@given(st.integers(1, 60).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_verdict_follows_the_bounds_and_is_monotone_in_the_successes(kn):
    k, n = kn
    verdict = seed_verdict(["reproduced"] * k + ["differs"] * (n - k))
    lower, upper = cp_bounds(k, n)
    assert (verdict == "reproduced") == (lower >= 0.8) and (verdict == "differs") == (upper <= 0.2)
    if k < n:  # one more success never moves the verdict towards differs
        order = {"differs": 0, SEED_DEPENDENT: 1, "reproduced": 2}
        assert order[seed_verdict(["reproduced"] * (k + 1) + ["differs"] * (n - k - 1))] >= order[verdict]


@given(st.lists(st.sampled_from(["not comparable", "calibration target", "calibration missed"]), min_size=1))
def test_a_claim_never_compared_keeps_its_category_only_when_every_replicate_gives_it(verdicts):
    expected = verdicts[0] if len(set(verdicts)) == 1 else SEED_DEPENDENT
    assert seed_verdict(verdicts) == expected
    # replicates where it is not compared do not count in the share
    assert seed_verdict(verdicts + ["reproduced"] * 11) == "reproduced"


def claim(cid, verdict, value="1", target="fig1"):
    return Claim(cid, "p", target, "d", "1", value, "rel 0.1", verdict, "" if verdict == "reproduced" else "why")


def test_table_of_replicates_with_median_range_and_counts(tmp_path):
    files = []
    for i, (va, vb) in enumerate([("reproduced", "differs"), ("reproduced", "reproduced"), ("reproduced", "differs")]):
        path = tmp_path / f"run{i}.csv"
        write_claims([claim("a", va, str(1.0 + i)), claim("b", vb, "nan"), claim("c", "not comparable", "n/a")], path)
        files.append(str(path))
    rows = {r.claim_id: r for r in claims_over_seeds([read_claims(f) for f in files])}
    a = rows["a"]
    assert (a.replicates, a.compared, a.reproduced, a.median, a.low, a.high) == (3, 3, 3, 2.0, 1.0, 3.0)
    assert a.verdict == SEED_DEPENDENT and a.share_lower == pytest.approx(0.1 ** (1 / 3))
    assert rows["b"].verdicts == "reproduced 1, differs 2" and math.isnan(rows["b"].median)
    assert rows["c"].verdict == "not comparable" and rows["c"].compared == 0
    out_csv, out_md = tmp_path / "o.csv", tmp_path / "o.md"
    assert main([str(out_csv), str(out_md), *files]) == 0
    text = out_md.read_text()
    assert "3 claims over 3 replicate runs" in text and "| a | p | fig1 | 1 | 2 [1, 3] | 3 / 3 |" in text
    # the per-paper counts: every claim of paper p once, under its verdict over the replicates
    assert "| paper | claims | seed-dependent | not comparable |" in text and "| p | 3 | 2 | 1 |" in text


def test_replicates_that_disagree_on_a_claims_target_are_refused():
    with pytest.raises(ClaimsOverSeedsError, match="claim a: paper/target differ"):
        claims_over_seeds([[claim("a", "reproduced")], [claim("a", "reproduced", target="fig2")]])
    with pytest.raises(ClaimsOverSeedsError, match="no replicate"):
        claims_over_seeds([])


def _contradiction(n_data: int, n_noise: int, *, data_determined: bool) -> float:
    """The largest probability, over a claim's true chance p of holding in one replicate, that one set of
    ``n_data`` x ``n_noise`` replicates calls it reproduced and a disjoint set calls it differs: replicates
    independent (``data_determined`` False), or the claim's outcome fixed by the data draw, so that a data
    replicate's noise replicates all agree (the most correlated case). The verdicts come from seed_verdict."""
    units, per_unit = (n_data, n_noise) if data_determined else (n_data * n_noise, 1)

    def verdict(j):
        return seed_verdict(["reproduced"] * (j * per_unit) + ["differs"] * ((units - j) * per_unit))

    rep = [j for j in range(units + 1) if verdict(j) == "reproduced"]
    dif = [j for j in range(units + 1) if verdict(j) == "differs"]
    p = np.linspace(0.0, 1.0, 1001)
    pmf = stats.binom.pmf(np.arange(units + 1)[:, None], units, p[None, :])  # (successes, p)
    return float((pmf[rep].sum(axis=0) * pmf[dif].sum(axis=0)).max())


@pytest.mark.parametrize("n_data,n_noise", [(5, 4), (4, 5), (11, 1), (10, 3)])
def test_two_disjoint_seed_sets_almost_never_contradict_each_other(n_data, n_noise):
    """With the configured 5 x 4 replicates (and other shapes of 20 or more), a claim is 'reproduced' over one seed
    set and 'differs' over a disjoint one with probability below 1e-6 when replicates are independent and below
    1e-3 when its outcome depends on the data draw only (2 ** -10 = 9.8e-4 for 5 data replicates), whatever its
    chance of holding."""
    assert _contradiction(n_data, n_noise, data_determined=False) < 1e-6
    assert _contradiction(n_data, n_noise, data_determined=True) <= 2.0 ** (-2 * n_data) + 1e-12
