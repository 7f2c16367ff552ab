"""Plausible synthetic loads for the OPF study (dpgrid.grid.loads.plausible_loads)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpgrid.grid.loads import LOAD_RULES, plausible_loads

COLS = [f"h{h:02d}" for h in range(25)]


def frame(values, clusters, prefix):
    df = pd.DataFrame(np.asarray(values, dtype=float), columns=COLS)
    df.insert(0, "cluster", np.asarray(clusters, dtype=int))
    df.insert(0, "profile_id", [f"{prefix}{i}" for i in range(len(df))])
    return df


@pytest.fixture()
def data():
    """Cluster 0: no export in the true data; cluster 1: true export down to -2 kW (PV).
    Synthetic values as from Algorithm 2: alpha (exp(y) - 1), alpha = 15 kW, so some are negative."""
    rng = np.random.default_rng(11)
    true0 = rng.lognormal(0.0, 0.5, (40, 25))
    true1 = rng.lognormal(0.0, 0.5, (30, 25))
    true1[:5, 10:15] = -rng.uniform(0.1, 2.0, (5, 5))
    true1[0, 12] = -2.0
    true = frame(np.vstack([true0, true1]), [0] * 40 + [1] * 30, "t")
    y = rng.normal(0.05, 0.12, (100, 25))
    syn = frame(15.0 * (np.exp(y) - 1.0), [0] * 60 + [1] * 40, "s")
    return true, syn


def test_none_changes_nothing_and_reports_the_negative_share(data):
    true, syn = data
    out, rep = plausible_loads(syn, true, "none", columns=COLS)
    pd.testing.assert_frame_equal(out, syn)
    x = syn[COLS].to_numpy()
    assert rep.share_affected == 0.0
    assert rep.share_negative == pytest.approx((x < 0).mean()) and rep.share_negative > 0.2
    assert rep.share_negative_true == pytest.approx((true[COLS].to_numpy() < 0).mean())
    # below = negative in the no-export cluster + below -2 kW in the export cluster
    c0 = syn.cluster.to_numpy() == 0
    expect = ((x[c0] < 0).sum() + (x[~c0] < -2.0).sum()) / x.size
    assert rep.share_below == pytest.approx(expect)


def test_clip_allows_negative_loads_only_where_the_data_exports(data):
    true, syn = data
    out, rep = plausible_loads(syn, true, "clip", columns=COLS)
    y, x = out[COLS].to_numpy(), syn[COLS].to_numpy()
    c0 = out.cluster.to_numpy() == 0
    assert (y[c0] >= 0).all()  # no PV in cluster 0: no negative load
    assert (y[~c0] >= -2.0).all() and (y[~c0] < 0).any()  # PV in cluster 1: export kept down to -2 kW
    assert rep.lower_kw == {0: 0.0, 1: -2.0}
    changed = y != x
    assert np.array_equal(changed[c0], x[c0] < 0) and np.array_equal(changed[~c0], x[~c0] < -2.0)
    assert np.array_equal(y[~changed], x[~changed])  # values in range are untouched
    assert rep.share_affected == pytest.approx(changed.mean()) == pytest.approx(rep.share_below)
    assert (y[c0][changed[c0]] == 0).all() and (y[~c0][changed[~c0]] == -2.0).all()  # set to the bound
    again, rep2 = plausible_loads(out, true, "clip", columns=COLS)  # idempotent
    pd.testing.assert_frame_equal(again, out)
    assert rep2.share_affected == 0.0
    assert list(out.columns) == list(syn.columns) and (out.profile_id == syn.profile_id).all()


def test_clip_range_caps_at_the_true_maximum_of_the_cluster(data):
    true, syn = data
    syn = syn.copy()
    syn.loc[0, "h19"] = 100.0  # an implausible evening peak
    out, rep = plausible_loads(syn, true, "clip_range", columns=COLS)
    y = out[COLS].to_numpy()
    for k in (0, 1):
        t = true[true.cluster == k][COLS].to_numpy()
        s = y[out.cluster.to_numpy() == k]
        assert s.max() <= t.max() and s.min() >= min(0.0, t.min())
    assert out.loc[0, "h19"] == pytest.approx(true[true.cluster == 0][COLS].to_numpy().max())
    assert rep.share_above >= 1 / syn[COLS].size
    assert rep.share_affected == pytest.approx(rep.share_above + rep.share_below)


def test_true_profiles_pass_every_rule_unchanged(data):
    true, _ = data
    for rule in LOAD_RULES:
        out, rep = plausible_loads(true, true, rule, columns=COLS)
        pd.testing.assert_frame_equal(out, true)
        assert rep.share_affected == 0.0 and rep.share_below == 0.0 and rep.share_above == 0.0


def test_bad_input_is_rejected(data):
    true, syn = data
    with pytest.raises(ValueError, match="unknown rule 'bogus'"):
        plausible_loads(syn, true, "bogus", columns=COLS)
    with pytest.raises(ValueError, match=r"cluster\(s\) \[7\]"):
        plausible_loads(syn.assign(cluster=7), true, "clip", columns=COLS)
    bad = syn.copy()
    bad.loc[3, "h02"] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        plausible_loads(bad, true, "clip", columns=COLS)
    with pytest.raises(ValueError, match="h24"):
        plausible_loads(syn.drop(columns="h24"), true, "clip", columns=COLS)
