"""benchmarks/peers_privacy.py on tiny cases: dpgrid's exact delta(eps) of Gaussian label pairs against the
independent Monte Carlo of the benchmark (scipy's log-densities, not Proposition 1) within its confidence interval,
and the one-dimensional Gaussian mechanism against dp_accounting's PLD within its discretisation bound."""

from __future__ import annotations

import importlib.util
import math
import sys

import numpy as np
import pytest

from tests.helpers.repo import REPO


def _peers_privacy():
    spec = importlib.util.spec_from_file_location("peers_privacy_under_test", REPO / "benchmarks" / "peers_privacy.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclass looks its module up
    spec.loader.exec_module(mod)
    return mod


pp = _peers_privacy()
EPS = np.round(np.linspace(0.0, 2.0, 9), 12)


def _tiny_pairs():
    """A k = 2 pair with different covariances (quadratic terms of both signs) and a forecast-shaped k = 6 pair."""
    two = pp.Pair(
        "k=2",
        np.zeros(2),
        np.array([[1.0, 0.3], [0.3, 0.8]]),
        np.array([0.8, -0.4]),
        np.array([[1.3, -0.2], [-0.2, 0.6]]),
        EPS,
    )
    return [two, pp.forecast_shaped_pair(6, np.random.default_rng(6), EPS)]


@pytest.mark.parametrize("which", [0, 1])
def test_monte_carlo_agrees_with_delta_exact_within_its_confidence_interval(which):
    pair = _tiny_pairs()[which]
    exact = pp.exact_curves(pair, 1e-8)
    assert exact["method"] in ("primary", "fallback") and np.all(exact["err"] <= 1e-8)
    assert np.all(exact["hs"] <= exact["pdp"] + 2e-8)  # PDP implies DP (classdp Theorem 1)
    n = pp.draws_for_half_width(exact["pdp"], 4e-3)
    # the sample count gives the requested 95 % half-width at the worst eps
    assert pp.Z95 * math.sqrt(np.max(exact["pdp"] * (1 - exact["pdp"])) / n) <= 4e-3
    assert pp.Z95 * math.sqrt(np.max(exact["pdp"] * (1 - exact["pdp"])) / (n - 1)) > 4e-3
    mc = pp.monte_carlo_curves(pair, n, np.random.default_rng(100 + which), batch=20_000)
    dev = pp.deviations(mc, exact)
    # 2 half-widths = 3.9 standard errors: 9 eps x 2 curves keep the family-wise false alarm rate below 0.2 %
    assert dev["pdp"] <= 2.0 and dev["hs"] <= 2.0, dev
    # and the check has power: an exact curve off by 0.01 (2.5 half-widths) is caught
    wrong = dict(exact, pdp=exact["pdp"] + 0.01, hs=exact["hs"] - 0.01)
    off = pp.deviations(mc, wrong)
    assert off["pdp"] > 2.0 and off["hs"] > 2.0, off


def test_compare_pair_rows_extrapolate_the_monte_carlo_cost_from_the_variance():
    pair = _tiny_pairs()[0]
    loose, tight = pp.compare_pair(pair, 1e-8, np.random.default_rng(1), half_width=1e-2)
    for row in (loose, tight):
        assert set(pp.KEYS) <= set(row)
        assert row["ratio"] == pytest.approx(row["dpgrid_s"] / row["library_s"])
    p = pp.exact_curves(pair, 1e-8)["pdp"]
    var = float(np.max(p * (1 - p)))
    n_run = math.ceil(var * (pp.Z95 / 1e-2) ** 2)
    n_tol = math.ceil(var * (pp.Z95 / 1e-8) ** 2)
    assert f"n={n_run:,} draws" in loose["library"] and f"n={n_tol:.2e} draws" in tight["library"]
    # CPU per draw times the draws: the extrapolated time is the run's time scaled by n_tol / n_run
    assert tight["library_s"] == pytest.approx(loose["library_s"] * n_tol / n_run)


def test_one_dimensional_gaussian_against_dp_accounting_pld_within_its_discretisation():
    pytest.importorskip(
        "dp_accounting.pld",
        reason="dp_accounting not installed (test extra): the PLD comparison is skipped, the Monte Carlo tests run",
    )
    from dpgrid.privacy.gaussian import hockey_stick_delta

    h = 1e-3
    eps = np.round(np.linspace(0.0, 3.0, 31), 12)
    for sens, sigma in ((0.5, 1.0), (3.0, 1.5)):
        d = sens / sigma
        pld = pp.pld_curve(sens, sigma, eps, interval=h)
        closed = hockey_stick_delta(eps, d)
        klass = pp.class_code_curve(sens, sigma, eps, 1e-10)
        # a pessimistic PLD rounds each privacy loss up by at most h: delta(eps) <= PLD(eps) <= delta(eps - h);
        # 1e-12 of slack for its FFT round-off
        upper = hockey_stick_delta(np.maximum(eps - h, 0.0), d)
        assert np.all(closed - 1e-12 <= pld) and np.all(pld <= upper + 1e-12)
        assert np.max(upper - closed) <= h  # a narrow band (|d delta / d eps| <= 1): a 1e-3 error cannot pass
        # the class-mechanism code with k = 1 (characteristic-function inversion) inside the same bound
        assert np.all(klass >= pld - (upper - closed) - 2e-10) and np.all(klass <= upper + 2e-10)
        np.testing.assert_allclose(klass, closed, atol=2e-10)
