"""The blowfish black-box audit (dpgrid.papers.blowfish.privacy_audit): its neighbour relation is rebuilt from the
population model alone, the unmodified mechanisms hold and a sensitivity taken as the smaller bound is violated."""

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from dpgrid.core.seeds import job_rng
from dpgrid.models import occupancy as occ
from dpgrid.papers.blowfish import privacy_audit as pa
from dpgrid.papers.blowfish.day import draw_day_population, settings_from_config
from tests.helpers.repo import REPO

AUDIT = {"random_pairs": 60, "pilot_samples": 1000, "keep": 4, "samples": 40000}


def _settings(households=40, **over):
    cfg = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["blowfish"]
    cfg.update(households=households, **over)
    return settings_from_config(cfg)


@settings(max_examples=8, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    threshold=st.sampled_from([0.0, 0.01, 0.03]),
    mode=st.sampled_from(["fixed", "cyclostationary"]),
)
def test_possible_states_match_the_support_propagation(seed, threshold, mode):
    """Independent computations of the Blowfish relation agree: marginal probabilities vs zero patterns."""
    s = _settings(
        30,
        clipping={"mode": "threshold", "threshold": threshold},
        initial_distribution={"mode": mode, "occupied_probability": 0.0},
    )
    pop = draw_day_population(s, np.random.default_rng(seed))
    assert np.array_equal(pa.possible_states(pop), occ.prior_support(pop))


def test_unmodified_holds_and_smaller_bound_sensitivity_is_violated(monkeypatch):
    s = _settings()
    rows = pa.audit_rows(s, AUDIT, job_rng(1, "t"), 0.9999)
    assert [r["verdict"] for r in rows] == ["holds", "holds"]
    monkeypatch.setattr(occ.HouseholdPopulation, "sensitivity", property(lambda self: self.bounds.min(axis=1)))
    rows = pa.audit_rows(s, AUDIT, job_rng(1, "t"), 0.9999)
    assert rows[0]["verdict"] == "violated" and rows[0]["mechanism"] == "blowfish_pricing"


@pytest.mark.parametrize("factor", [0.5, 0.75])
def test_naive_noise_below_calibration_is_violated(monkeypatch, factor):
    """The naive baseline with lambda x factor (true eps = eps / factor >= 1.33 eps) is violated."""
    from dpgrid.mechanisms import blowfish_pricing as bp

    orig = bp.naive_noise_parameter
    monkeypatch.setattr(bp, "naive_noise_parameter", lambda *a: factor * orig(*a))
    rows = pa.audit_rows(_settings(), AUDIT, job_rng(2, "t"), 0.9999)
    assert rows[1]["mechanism"] == "naive_laplace" and rows[1]["verdict"] == "violated"
