"""Claim verdicts over seeds (dpgrid.core.claims_over_seeds): the Clopper-Pearson bounds, the rule, the table."""

from __future__ import annotations

import math

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


def test_replicates_that_disagree_on_a_claims_target_are_refused():
    with pytest.raises(ClaimsOverSeedsError, match="claim a: paper/target differ"):
        claims_over_seeds([[claim("a", "reproduced")], [claim("a", "reproduced", target="fig2")]])
    with pytest.raises(ClaimsOverSeedsError, match="no replicate"):
        claims_over_seeds([])
