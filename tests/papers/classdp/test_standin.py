"""classdp stand-in population (dpgrid.papers.classdp.standin): stated properties, the meaning of
the within-cluster similarity measured on generated data, determinism, config path."""

import hashlib

import numpy as np
import pandas as pd
import pytest

from dpgrid.data.sources import load_experiment_data
from dpgrid.papers.classdp.standin import region_of, synthesize_clustered_households, within_cluster_similarity


def _log_matrix(md):
    return np.log(md.wide().to_numpy(dtype=float).T)


def test_paper_counts_resolution_and_regions():
    """100 households at 15 min in 6 regions (sizes 17/16), positive finite loads, regions in the meter table."""
    md = synthesize_clustered_households(100, 6, 0.6, "2019-01-07", 3, 15, np.random.default_rng(1))
    assert len(md.meters) == 100 and md.meters["meter_id"].is_unique
    assert md.step == pd.Timedelta(minutes=15)
    assert len(md.readings) == 100 * 3 * 96
    assert (md.readings["kw"] > 0).all() and np.isfinite(md.readings["kw"]).all()
    sizes = md.meters["region"].value_counts().sort_index()
    assert list(sizes.index) == [1, 2, 3, 4, 5, 6] and sorted(sizes.tolist()) == [16, 16, 17, 17, 17, 17]
    assert (md.meters["customer_class"] == "residential").all()
    assert md.readings["timestamp"].min() == pd.Timestamp("2019-01-07")


@pytest.mark.parametrize("lam", [0.3, 0.8])
def test_similarity_is_the_within_region_share_of_log_variance(lam):
    """lambda = 1 - E_within/E_across (mean squared log-load differences), measured on many regions.

    With sqrt weights replaced by lambda itself (a plausible bug) the measured share would be
    lambda^2/(lambda^2 + (1-lambda)^2): 0.155 for 0.3 and 0.94 for 0.8, outside the tolerance.
    """
    md = synthesize_clustered_households(400, 200, lam, "2019-01-07", 7, 60, np.random.default_rng(11))
    got = within_cluster_similarity(_log_matrix(md), md.meters["region"].to_numpy())
    assert got["similarity"] == pytest.approx(lam, abs=0.07)


def test_similarity_limits_and_marginal_log_variance():
    """lambda = 0: the base households themselves (no region effect); lambda = 1: identical within a
    region; the log-load mean and variance of the population do not depend on lambda."""
    kw = dict(n_households=400, n_clusters=200, start="2019-01-07", days=7, step_minutes=60)
    y0 = _log_matrix(synthesize_clustered_households(similarity=0.0, rng=np.random.default_rng(5), **kw))
    y5 = _log_matrix(synthesize_clustered_households(similarity=0.5, rng=np.random.default_rng(5), **kw))
    md1 = synthesize_clustered_households(similarity=1.0, rng=np.random.default_rng(5), **kw)
    y1 = _log_matrix(md1)
    region = region_of(400, 200)
    assert within_cluster_similarity(y0, region)["similarity"] == pytest.approx(0.0, abs=0.07)
    w1 = within_cluster_similarity(y1, region)
    assert w1["mean_sq_diff_within"] < 1e-12 * w1["mean_sq_diff_across"] and w1["similarity"] == pytest.approx(1.0)
    # same own components (same seed): the within-region differences shrink by exactly 1 - lambda
    w5 = within_cluster_similarity(y5, region)["mean_sq_diff_within"]
    r = w5 / within_cluster_similarity(y0, region)["mean_sq_diff_within"]
    assert r == pytest.approx(0.5, rel=1e-9)
    # the population profile m(t) is kept: its level up to the sampling error of the mean of the
    # 200 regions' levels (5 sigma; without centring on m(t) the level would move by
    # (sqrt(.5) + sqrt(.5) - 1) * 0.7 = 0.29), its daily shape within 10 % (a constant centre would
    # scale it by sqrt(.5) + sqrt(.5) = 1.41); the deviations from it keep their variance
    level_sd = y0.mean(axis=1).std()
    assert abs(y5.mean() - y0.mean()) < 5 * np.sqrt(0.5) * level_sd / np.sqrt(200)
    assert y5.mean(axis=0).std() == pytest.approx(y0.mean(axis=0).std(), rel=0.1)
    assert (y5 - y5.mean(axis=0)).var() == pytest.approx((y0 - y0.mean(axis=0)).var(), rel=0.1)


def test_deterministic_and_seed_dependent():
    def digest(seed):
        md = synthesize_clustered_households(12, 3, 0.7, "2019-01-07", 2, 15, np.random.default_rng(seed))
        return hashlib.sha256(
            pd.util.hash_pandas_object(md.readings, index=False).values.tobytes() + md.meters.to_csv().encode()
        ).hexdigest()

    assert digest(3) == digest(3)
    assert digest(3) != digest(4)


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), "0.5"])
def test_bad_similarity_is_rejected(bad):
    with pytest.raises(ValueError, match="similarity"):
        synthesize_clustered_households(12, 3, bad, "2019-01-07", 2, 15, np.random.default_rng(0))


def test_more_regions_than_households_is_rejected():
    with pytest.raises(ValueError, match="n_clusters"):
        synthesize_clustered_households(4, 6, 0.5, "2019-01-07", 2, 15, np.random.default_rng(0))


def test_config_source_selects_the_stand_in():
    """data.experiments.<name>.source = synthetic_clustered gives the generator's frame for the job's rng."""
    spec = {
        "source": "synthetic_clustered",
        "start": "2019-01-07",
        "days": 2,
        "step_minutes": 15,
        "n_residential": 12,
        "n_clusters": 3,
        "within_cluster_similarity": 0.7,
    }
    md = load_experiment_data(spec, np.random.default_rng(9), name="classdp_forecast")
    ref = synthesize_clustered_households(12, 3, 0.7, "2019-01-07", 2, 15, np.random.default_rng(9))
    pd.testing.assert_frame_equal(md.readings, ref.readings)
    pd.testing.assert_frame_equal(md.meters, ref.meters)
    with pytest.raises(ValueError, match="within_cluster_similarity"):
        load_experiment_data(
            {k: v for k, v in spec.items() if k != "within_cluster_similarity"},
            np.random.default_rng(9),
            name="classdp_forecast",
        )
