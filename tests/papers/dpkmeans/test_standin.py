"""The dpkmeans stand-in population (dpgrid.papers.dpkmeans.standin): its stated properties and determinism."""

import hashlib

import numpy as np
import pandas as pd
import pytest

from dpgrid.data.profiles import PROFILE_HOURS as HOURS
from dpgrid.data.profiles import daily_profiles
from dpgrid.data.sources import load_experiment_data
from dpgrid.mechanisms.dp_kmeans_baselines import knn_outliers
from dpgrid.mechanisms.kmeans_sensitivity import fit_kmeans
from dpgrid.papers.dpkmeans.standin import (
    SMALL_ARCHETYPES,
    StandinError,
    StandinModel,
    archetype_sizes,
    standin_profiles,
    synthesize_dpkmeans_standin,
)

SEP = 1.748  # config/config.yaml data.experiments.dpkmeans.separation


def test_counts_ids_classes_and_hourly_positive_readings():
    md = synthesize_dpkmeans_standin(60, 3, [4, 5], SEP, "2019-01-07", 3, 60, np.random.default_rng(1))
    m = md.meters
    assert len(m) == 63 and (m["customer_class"] == "commercial").sum() == 3
    assert list(m["meter_id"][:2]) == ["R0001", "R0002"] and list(m["meter_id"][-3:]) == ["C001", "C002", "C003"]
    counts = md.readings.groupby("meter_id").size()
    assert (counts == 3 * 24).all()
    assert (md.readings["kw"] > 0).all()
    assert md.readings["timestamp"].diff().dropna().isin([pd.Timedelta(hours=1), pd.Timedelta(hours=-71)]).all()


def test_same_generator_state_gives_identical_data_and_another_seed_does_not():
    a = synthesize_dpkmeans_standin(40, 2, [4, 5], SEP, "2019-01-07", 2, 60, np.random.default_rng(7))
    b = synthesize_dpkmeans_standin(40, 2, [4, 5], SEP, "2019-01-07", 2, 60, np.random.default_rng(7))
    c = synthesize_dpkmeans_standin(40, 2, [4, 5], SEP, "2019-01-07", 2, 60, np.random.default_rng(8))
    pd.testing.assert_frame_equal(a.readings, b.readings)
    pd.testing.assert_frame_equal(a.meters, b.meters)
    assert not np.array_equal(a.readings["kw"].to_numpy(), c.readings["kw"].to_numpy())


def test_archetype_sizes_split_the_large_share_and_keep_the_small_sizes():
    sizes = archetype_sizes(1409, [8, 12])
    assert sizes.sum() == 1409 and list(sizes[-2:]) == [8, 12]
    shares = np.array([s for s, _ in StandinModel().large])
    np.testing.assert_allclose(sizes[:-2], (1409 - 20) * shares / shares.sum(), atol=1.0)
    with pytest.raises(StandinError, match="2 sizes"):
        archetype_sizes(100, [8])
    with pytest.raises(StandinError, match="leaves"):
        archetype_sizes(20, [8, 10])


def test_large_archetypes_are_multivariate_lognormal_with_the_stated_moments():
    """Within a large archetype, log m_p(h) ~ N(log(L s(h)) - v/2, v), v = sigma_L^2 + sigma_g^2 (module doc)."""
    model = StandinModel()
    prof, arche = standin_profiles(6000, [4, 4], SEP, np.random.default_rng(3), model)
    v = model.house_log_sd**2 + model.shape_log_sd**2
    for k, (_, a) in enumerate(model.large):
        y = np.log(prof[arche == k])
        n = len(y)
        mean_expect = np.log(a.level * model.residential_mean_kw * a.shape()) - v / 2
        # the sample mean of each hour is within 4.5 standard errors, the variance within 4.5 of its s.e.
        assert np.abs(y.mean(0) - mean_expect).max() < 4.5 * np.sqrt(v / n)
        assert np.abs(y.var(0, ddof=1) - v).max() < 4.5 * v * np.sqrt(2 / (n - 1))
        # hours are correlated through the common level: corr(y_h, y_h') >= sigma_L^2 / v
        c = np.corrcoef(y.T)
        assert c.min() > model.house_log_sd**2 / v - 0.1


def test_small_archetypes_add_their_appliance_load():
    """E[m_p(h)] of a small archetype = mixture mean of the large archetypes + separation x the appliance profile."""
    model = StandinModel()
    n_small = 1500
    prof, arche = standin_profiles(6000, [n_small, n_small], SEP, np.random.default_rng(4), model)
    shares = np.array([s for s, _ in model.large])
    base = sum(
        s * a.level * model.residential_mean_kw * a.shape()
        for s, a in zip(shares / shares.sum(), [a for _, a in model.large])
    )
    for j, app in enumerate(SMALL_ARCHETYPES):
        x = prof[arche == len(model.large) + j]
        expect = base + SEP * app.profile()
        se = x.std(0, ddof=1) / np.sqrt(len(x))
        assert np.all(np.abs(x.mean(0) - expect) < 4.5 * se)


@pytest.fixture(scope="module")
def paper_size_population():
    """The default population (1409 + 7, separation as configured), one week of readings."""
    seed = 20241122
    md = synthesize_dpkmeans_standin(1409, 7, [8, 12], SEP, "2019-01-07", 7, 60, np.random.default_rng(seed))
    _, arche = standin_profiles(1409, [8, 12], SEP, np.random.default_rng(seed))
    return daily_profiles(md), arche


def test_commercial_meters_are_outliers_for_the_20nn_rule(paper_size_population):
    prof, _ = paper_size_population
    out = knn_outliers(prof[HOURS].to_numpy(float), 20, 3.0)
    com = (prof["customer_class"] == "commercial").to_numpy()
    assert com.sum() == 7 and out[com].all()


def test_kmeans_finds_the_two_small_clusters(paper_size_population):
    """K = 6 on the homes gives exactly two clusters with fewer than d = 25 members, made of the small archetypes."""
    prof, arche = paper_size_population
    X = prof.loc[prof["customer_class"] == "residential", HOURS].to_numpy(float)
    sol = fit_kmeans(X, 6, np.random.default_rng(0), n_init=3)
    counts = sol.counts()
    small = np.flatnonzero(counts < 25)
    assert len(small) == 2
    n_large = len(StandinModel().large)
    for k in small:
        members = arche[sol.labels == k]
        assert (members >= n_large).mean() >= 0.8 and len(set(members[members >= n_large])) == 1


def test_source_entry_point_and_hourly_only():
    spec = {
        "source": "dpkmeans_standin",
        "start": "2019-01-07",
        "days": 2,
        "step_minutes": 60,
        "n_residential": 30,
        "n_commercial": 1,
        "small_clusters": [3, 4],
        "separation": SEP,
    }
    md = load_experiment_data(spec, np.random.default_rng(0), name="dpkmeans")
    assert md.source == "dpkmeans_standin:dpkmeans" and len(md.meters) == 31
    with pytest.raises(StandinError, match="step_minutes must divide 60"):
        load_experiment_data({**spec, "step_minutes": 120}, np.random.default_rng(0), name="dpkmeans")
    # a finer step splits each hour and keeps its mean: the same hourly data, the same daily profiles
    fine = load_experiment_data({**spec, "step_minutes": 15}, np.random.default_rng(0), name="dpkmeans")
    assert len(fine.readings) == 4 * len(md.readings)
    np.testing.assert_allclose(
        daily_profiles(fine)[HOURS].to_numpy(float), daily_profiles(md)[HOURS].to_numpy(float), rtol=1e-12
    )
    with pytest.raises(StandinError, match="separation"):
        load_experiment_data({**spec, "separation": -1.0}, np.random.default_rng(0), name="dpkmeans")


def test_generic_synthetic_population_is_unchanged():
    """The stand-in reuses private helpers of dpgrid.data.synthetic; the generic population stays byte-identical
    (digest of the readings of a fixed small configuration, recorded at commit 48f54e5)."""
    from dpgrid.data.synthetic import synthesize_meter_data

    md = synthesize_meter_data(5, 1, "2019-01-07", 2, 60, np.random.default_rng(123))
    digest = hashlib.sha256(md.readings["kw"].to_numpy().tobytes()).hexdigest()
    assert digest == GENERIC_DIGEST


GENERIC_DIGEST = "14c5a03a6e69407131528bf206324230e7ce76e156d3f6c5e87f9c8ac90a0a1b"
