"""OPF experiment pieces: class-weighted sampling, distances and bootstrap intervals."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpgrid.core.seeds import job_rng
from dpgrid.grid.load_assignment import class_counts, sample_houses
from dpgrid.grid.voltage_stats import bus_bootstrap, ks_statistic, share_outside, wasserstein1


def profiles(n_per_cluster, prefix):
    rows = []
    for k, n in enumerate(n_per_cluster):
        for i in range(n):
            rows.append({"profile_id": f"{prefix}{k}_{i}", "cluster": k, **{f"h{h:02d}": 1.0 + k for h in range(25)}})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("n", [1, 7, 50, 100])
def test_class_counts_are_proportional_and_sum_to_n(n):
    clusters = np.repeat([0, 1, 2, 3], [10, 20, 30, 40])
    c = class_counts(clusters, n)
    assert sum(c.values()) == n
    for k, size in zip(range(4), [10, 20, 30, 40]):
        assert np.floor(n * size / 100) <= c[k] <= np.ceil(n * size / 100)


def test_class_counts_rejects_too_many():
    with pytest.raises(ValueError, match="P'"):
        class_counts([0, 1], 3)


def test_samples_match_cluster_by_cluster_and_are_deterministic():
    true, synth = profiles([30, 20, 10], "T"), profiles([40, 25, 15], "S")
    a = sample_houses(true, synth, 40, job_rng(1, "t"), n_reference=2)
    b = sample_houses(true, synth, 40, job_rng(1, "t"), n_reference=2)
    assert sorted(a) == ["reference1", "reference2", "synthetic", "true"]
    for name in a:
        assert len(a[name]) == 40
        np.testing.assert_array_equal(a[name]["cluster"], a["true"]["cluster"])
        pd.testing.assert_frame_equal(a[name], b[name])
    assert a["true"]["profile_id"].is_unique and a["synthetic"]["profile_id"].str.startswith("S").all()


def test_distances_match_closed_forms():
    assert wasserstein1([0, 0, 0], [1, 1, 1]) == pytest.approx(1.0)
    x = np.random.default_rng(0).normal(size=500)
    assert wasserstein1(x, x + 0.3) == pytest.approx(0.3)
    assert ks_statistic([0, 1], [2, 3]) == 1.0
    assert share_outside([0.94, 1.0, 1.06, 1.05], 0.95, 1.05) == 0.5


def test_bus_bootstrap_covers_a_known_shift():
    rng = np.random.default_rng(3)
    x = rng.normal(1.0, 0.01, size=(80, 5))
    y = x + 0.002 + rng.normal(0, 0.001, size=x.shape)
    iv = bus_bootstrap(x, y, lambda a, b: float(np.mean(b - a)), n_resamples=300, level=0.95, rng=job_rng(0, "b"))
    assert iv.low <= 0.002 <= iv.high and iv.low < iv.estimate < iv.high
    # the percentile interval is close to the normal-theory interval of a mean
    se = stats.sem((y - x).mean(axis=1))
    assert iv.high - iv.low == pytest.approx(2 * 1.96 * se, rel=0.3)
    with pytest.raises(ValueError):
        bus_bootstrap(x, y[:3], wasserstein1, n_resamples=10, level=0.9, rng=job_rng(0, "b"))
