"""Fidelity analysis of the spdp reproduction: readings of eqs. (12)-(13), the Table III calibration sweep,
the exact-delta audit, and the SpDP construction variants (dpgrid.papers.spdp.stages.fidelity)."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dpgrid.mechanisms.spectral import design_reduction_filter, release_metrics
from dpgrid.mechanisms.spectral_adjacency import (
    AdjacencyError,
    b_spdp_reading,
    b_trdp_reading,
    block_profile_share,
    first_pair_distances,
    mean_pairwise_sq_distance,
    required_profile_share,
    trajectory_blocks,
    trdp_max_lower_bound,
)
from dpgrid.models.psd import PSDEstimator, sos_power_response
from dpgrid.papers.spdp.calibration_sweep import (
    exact_delta_row,
    formula_sweep,
    printed_interval,
    sample_std_probability,
    sigma_formula,
)
from dpgrid.papers.spdp.fidelity_calibration import (
    TRDP_CALIBRATIONS,
    delta_audit_rows,
    trdp_expected_metrics,
    trdp_printed_check,
    window_evidence,
)
from dpgrid.papers.spdp.fidelity_sweeps import spdp_params_variants
from dpgrid.papers.spdp.pipeline import SpDPParams, evaluation_window, run_spdp
from dpgrid.privacy.gaussian import hockey_stick_delta


def q_inverse(delta):
    return float(stats.norm.isf(delta))


EPS, DELTA = math.log(2), 0.01


# ------------------------------------------------------------------ readings of eq. (13)


def test_trdp_readings_on_constructed_blocks():
    """Blocks of constant levels 0, 1, 3, 0 (K = 5): every reading has a closed form."""
    k = 5
    x = np.repeat([0.0, 1.0, 3.0, 0.0], k)
    r5 = math.sqrt(k)
    assert b_trdp_reading(x, k, "max_all_pairs") == pytest.approx(3 * r5)
    assert b_trdp_reading(x, k, "max_consecutive") == pytest.approx(3 * r5)  # 3 -> 0
    assert b_trdp_reading(x, k, "first_pair") == pytest.approx(r5)
    assert b_trdp_reading(x, k, "min_all_pairs") == pytest.approx(0.0)  # blocks 1 and 4
    # pair distances / sqrt(K): 1, 3, 0, 2, 1, 3 -> median 1.5, mean of squares 24/6 = 4
    assert b_trdp_reading(x, k, "median_all_pairs") == pytest.approx(1.5 * r5)
    assert b_trdp_reading(x, k, "rms_all_pairs") == pytest.approx(2.0 * r5)
    with pytest.raises(AdjacencyError, match="unknown B_TrDP reading"):
        b_trdp_reading(x, k, "mean")


def test_mean_pairwise_identity_and_lower_bound_against_brute_force():
    rng = np.random.default_rng(0)
    x = rng.gamma(1.5, 1.0, 48 * 40) + np.tile(np.sin(np.arange(48) / 5.0), 40)
    blocks = trajectory_blocks(x, 48)
    brute = np.mean([np.sum((a - b) ** 2) for a, b in itertools.permutations(blocks, 2)])
    assert mean_pairwise_sq_distance(blocks) == pytest.approx(brute, rel=1e-12)
    share = block_profile_share(x, 48)
    assert 0.05 < share < 0.5  # the sine profile repeats in every block
    # the bound uses the population std of the series: max >= rms over pairs >= bound
    bound = trdp_max_lower_bound(x.std(), 48, share)
    assert bound <= b_trdp_reading(x, 48, "rms_all_pairs") <= b_trdp_reading(x, 48, "max_all_pairs")
    assert bound == pytest.approx(math.sqrt(brute * 39 / 40), rel=1e-9)  # equality up to n / (n - 1)
    # required_profile_share inverts the bound
    b = 12.3
    assert trdp_max_lower_bound(1.74, 48, required_profile_share(b, 1.74, 48)) == pytest.approx(b)
    assert required_profile_share(1e6, 1.74, 48) == 0.0


def test_periodic_series_has_profile_share_one_and_zero_distance():
    x = np.tile(np.arange(10.0), 8)
    assert block_profile_share(x, 10) == pytest.approx(1.0)
    assert b_trdp_reading(x, 10, "max_all_pairs") == pytest.approx(0.0)


def test_paper_values_need_an_almost_deterministic_home():
    """For the stated std 1.74 kW, eq. (13)'s max can be 0.2 kW at 4 h only if 99.986 % of the variance is
    a repeated 4-h profile, and 39 kW at one week only if 87.5 % is a repeated weekly profile."""
    assert required_profile_share(0.2, 1.74, 48) == pytest.approx(1 - 0.04 / (96 * 1.74**2))
    assert required_profile_share(0.2, 1.74, 48) > 0.9998
    assert required_profile_share(39.0, 1.74, 2016) == pytest.approx(1 - 39.0**2 / (2 * 2016 * 1.74**2))
    assert 0.875 < required_profile_share(39.0, 1.74, 2016) < 0.876
    assert trdp_max_lower_bound(1.74, 48) == pytest.approx(1.74 * math.sqrt(96))


def test_first_pair_distances_and_spdp_readings_brute_force():
    rng = np.random.default_rng(3)
    x = rng.standard_normal(400)
    d = first_pair_distances(x, 20, [0, 7, 100])
    assert d[1] == pytest.approx(np.linalg.norm(x[7:27] - x[27:47]))
    with pytest.raises(AdjacencyError, match="runs past"):
        first_pair_distances(x, 20, [370])
    est = PSDEstimator(n_points=16, fs_per_hour=12.0)
    y = rng.standard_normal(1200) * np.repeat([1.0, 1.6, 0.8], 400)
    lengths = [300, 400, 500]
    nested = max(
        np.linalg.norm(est.estimate(y[:a]) - est.estimate(y[:b])) for a, b in itertools.combinations(lengths, 2)
    )
    assert b_spdp_reading(y, est, lengths=lengths, step=100, reading="nested") == pytest.approx(nested)
    cons = max(np.linalg.norm(est.estimate(y[:n]) - est.estimate(y[n : 2 * n])) for n in lengths)
    assert b_spdp_reading(y, est, lengths=lengths, step=100, reading="consecutive") == pytest.approx(cons)
    assert b_spdp_reading(y, est, lengths=lengths, step=100, reading="first_span") <= b_spdp_reading(
        y, est, lengths=lengths, step=100, reading="sliding"
    )
    with pytest.raises(AdjacencyError, match="consecutive"):
        b_spdp_reading(y, est, lengths=[700], step=100, reading="consecutive")


# ------------------------------------------------------------------ Table III calibration sweep


def test_only_eq2_at_delta_1e3_prints_the_table3_digits():
    """0.92 kW (B = 0.2) and 0.18 MW = 180 kW (B = 39; Table II prints 180) at eps = log 2."""
    rows = formula_sweep(
        {"b4h": 0.2, "b1wk": 39.0},
        {"b4h": (0.92, 2), "b1wk": (180.0, 0)},
        eps_values=[EPS],
        delta_values=[0.01, 0.001],
        sample_sizes=(288,),
    )
    hit = [(r["formula"], r["delta"]) for r in rows if r["joint_rounds"]]
    assert hit == [("proposition1", 0.001)]
    cl = next(r for r in rows if r["formula"] == "classical" and r["delta"] == 0.01)
    assert cl["b4h_sigma"] == pytest.approx(0.8966, abs=1e-4) and cl["b1wk_sigma"] == pytest.approx(174.84, abs=0.01)
    assert sigma_formula("proposition1", 0.2, EPS, 0.001) == pytest.approx(0.9229, abs=1e-4)
    assert sigma_formula("quantile", 1.0, EPS, DELTA) == pytest.approx(q_inverse(DELTA) / EPS)


def test_expected_trdp_metrics_match_printed_digits_and_monte_carlo():
    rows = trdp_printed_check(
        1.73,
        1.74,
        0.2,
        {"sigma_kw": (0.92, 2), "std_kw": (1.97, 2), "correlation": (0.88, 2), "snr_db_paper": (9.07, 2)},
        eps=EPS,
        calibrations=TRDP_CALIBRATIONS,
    )
    by = {(r["formula"], r["delta"]): r for r in rows}
    assert by[("proposition1", 0.001)]["n_matching"] == 4
    assert by[("classical", 0.01)]["n_matching"] == 0
    # the expectation formulas against a large simulated release
    rng = np.random.default_rng(4)
    x = 1.73 + 1.74 * rng.standard_normal(400_000)
    m = release_metrics(x, x + 0.9 * rng.standard_normal(x.size))
    e = trdp_expected_metrics(1.73, 1.74, 0.9)
    for key, tol in (("std_kw", 0.01), ("correlation", 0.005), ("snr_db_paper", 0.05)):
        assert m[key] == pytest.approx(e[key], abs=tol)


def test_sample_std_probability_against_simulation():
    rng = np.random.default_rng(5)
    n, sigma = 288, 0.9
    lo, hi = printed_interval(0.92, 2)
    s = rng.normal(0, sigma, (20_000, n)).std(axis=1, ddof=1)
    emp = np.mean((s >= lo) & (s < hi))
    p = sample_std_probability(sigma, n, lo, hi)
    assert abs(emp - p) < 4 * math.sqrt(p * (1 - p) / s.size)


def test_window_evidence_z_scores():
    rows = window_evidence(1.74, 180.0, 1.73, -0.015, 3.38, [288, 104_544])
    rho = 1.74 / math.hypot(1.74, 180.0)
    assert rows[1]["corr_z"] == pytest.approx((math.atanh(-0.015) - math.atanh(rho)) * math.sqrt(104_541))
    assert rows[1]["corr_z"] < -7 and abs(rows[0]["corr_z"]) < 1  # a year vs a day
    assert rows[1]["mean_z"] == pytest.approx((3.38 - 1.73) / (180 / math.sqrt(104_544)))


# ------------------------------------------------------------------ exact delta audit


def test_exact_delta_table_against_dp_accounting():
    pld_mod = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    rows = delta_audit_rows(
        SpDPParams(n_points=32),
        0.12,
        [
            ("a", 0.2, "proposition1", DELTA),
            ("b", 0.2, "classical", DELTA),
            ("c", 39.0, "proposition1", 0.001),
            ("d", 0.2, "analytic", DELTA),
        ],
    )
    a = q_inverse(DELTA)
    spdp_shift = math.sqrt(a * a + 2 * EPS) - a  # B / sqrt(lambda_bar), eq. (7)
    assert rows[0]["shift_norm"] == pytest.approx(spdp_shift, rel=1e-9)
    assert rows[0]["exact_delta"] == pytest.approx(0.000875, abs=1e-6)  # the audit's "about 0.00087"
    assert rows[0]["privacy_loss_tail"] == pytest.approx(DELTA, rel=1e-9)
    assert rows[1]["exact_delta"] == pytest.approx(rows[0]["exact_delta"], rel=1e-9)  # eq. (2) == eq. (7)
    assert rows[4]["exact_delta"] == pytest.approx(DELTA, rel=1e-6)  # analytic: tight
    for r in rows:
        pld = pld_mod.from_gaussian_mechanism(
            1.0 / r["shift_norm"], sensitivity=1.0, value_discretization_interval=1e-4
        )
        assert r["exact_delta"] == pytest.approx(pld.get_delta_for_epsilon(EPS), rel=2e-2, abs=1e-7)
        assert r["exact_delta"] <= r["calibrated_delta"] * (1 + 1e-6)
    assert exact_delta_row("m", "c", EPS, 0.01, 0.5)["exact_delta"] == pytest.approx(hockey_stick_delta(EPS, 0.5))


def test_marginal_noise_construction_is_not_private():
    """Sigma = lambda_bar C_beta (each bin's variance lambda_bar) has lambda_min = lambda_min(C) lambda_bar < lambda_bar:
    the exact delta at eps exceeds the claimed 0.01 (and a Monte Carlo audit of the loss tail sees it)."""
    p = spdp_params_variants(SpDPParams(n_points=32), ["marginal"])["marginal"]
    mech = p.mechanism(0.12)
    assert mech.marginal_std**2 == pytest.approx(mech.lambda_bar, rel=1e-9)
    assert not mech.satisfies_proposition2
    row = delta_audit_rows(p, 0.12, [])[0]
    assert row["exact_delta"] > DELTA
    # Monte Carlo: outputs u = 0 + w; privacy loss against the neighbour v is L = -u' S^-1 v + v' S^-1 v / 2
    rng = np.random.default_rng(6)
    v = mech.worst_case_shift()
    inv_v = np.linalg.solve(mech.cov, v)
    loss = -(mech.sample_noise(rng, 100_000) @ inv_v) + 0.5 * v @ inv_v
    tail = np.mean(loss > EPS)
    assert tail > DELTA
    assert tail == pytest.approx(row["privacy_loss_tail"], abs=5 * math.sqrt(tail / 1e5))


# ------------------------------------------------------------------ SpDP construction variants


def _ar_series(n, rng):
    from scipy import signal

    return 1.5 + signal.lfilter([1.0], [1.0, -1.2, 0.4], rng.standard_normal(n + 500))[500:] * 0.4


def test_reduction_filter_clip_keeps_table1_filter_and_floors_gamma():
    est = PSDEstimator(n_points=32, fs_per_hour=12.0)
    rng = np.random.default_rng(7)
    phi = est.estimate(_ar_series(20_000, rng))
    phi_tilde = 0.5 * phi + 0.01  # below |F|^2 phi at low frequencies
    kw = dict(cutoff_per_hour=0.72, gain=0.8, order=1, shrink=0.8, min_cutoff_per_hour=1e-3, gamma_floor=1e-3)
    d = design_reduction_filter(phi, phi_tilde, est, gamma_handling="clip", **kw)
    assert d.cutoff_per_hour == 0.72 and d.gain == 0.8
    raw = phi_tilde - sos_power_response(d.sos, est.omega) * phi
    bad = raw <= 1e-3 * phi_tilde
    assert bad.any() and d.steps[0]["n_bins_not_positive"] == bad.sum()
    assert np.allclose(d.gamma, np.where(bad, 1e-3 * phi_tilde, raw))
    a = design_reduction_filter(phi, phi_tilde, est, gamma_handling="adapt", **kw)
    assert a.gain < 0.8 or a.cutoff_per_hour < 0.72
    assert np.all(a.gamma > 0)


def test_one_sided_convention_changes_only_the_units():
    """One-sided = two-sided x 2 on interior bins; the streaming release built in either convention has the
    same released-series variance for a B scaled accordingly (B_one = 2 B_two: same noise in variance terms)."""
    rng = np.random.default_rng(8)
    x = _ar_series(60_000, rng)
    two = PSDEstimator(n_points=32, fs_per_hour=12.0)
    one = PSDEstimator(n_points=32, fs_per_hour=12.0, onesided=True)
    p2, p1 = two.estimate(x), one.estimate(x)
    assert np.allclose(p1[1:-1], 2 * p2[1:-1]) and p1[0] == p2[0] and p1[-1] == p2[-1]
    assert one.variance_from_psd(p1) == pytest.approx(two.variance_from_psd(p2), rel=1e-12)
    base = SpDPParams(n_points=32, psd_window_days=28, gamma_handling="clip")
    ev = slice(1000, x.size)
    s2 = [
        release_metrics(
            x[ev], run_spdp(x, 12.0, base, 0.05, np.random.default_rng(s), np.random.default_rng(50 + s)).released[ev]
        )["std_kw"]
        for s in range(6)
    ]
    s1 = [
        release_metrics(
            x[ev],
            run_spdp(
                x,
                12.0,
                spdp_params_variants(base, ["one_sided"])["one_sided"],
                0.10,
                np.random.default_rng(s),
                np.random.default_rng(50 + s),
            ).released[ev],
        )["std_kw"]
        for s in range(6)
    ]
    assert np.mean(s1) == pytest.approx(np.mean(s2), rel=0.05)


def test_params_from_config_and_variants():
    cfg = {
        "psd": {"n_points": 288, "convention": "one_sided"},
        "privacy": {"epsilon": EPS, "delta": DELTA},
        "mechanism": {
            "beta": 0.5,
            "correlation_structure": "ar1",
            "noise_scaling": "proposition2",
            "positive_filter": {"omega_n": 0.39, "gain": 0.8, "mode": "causal"},
            "psd_window_days": 28,
        },
        "streaming": {
            "reduction_filter": {
                "cutoff_hz": 2e-4,
                "gain": 0.8,
                "order": 1,
                "adapt_factor": 0.8,
                "min_cutoff_hz": 1e-6,
                "gamma_floor": 1e-3,
                "gamma_handling": "clip",
            },
            "mean_handling": "restore",
            "burn_in_hours": 48,
        },
    }
    p = SpDPParams.from_config(cfg)
    assert p.onesided and p.positive_filter_mode == "causal" and p.gamma_handling == "clip"
    v = spdp_params_variants(p, ["two_sided+adapt+order2"])["two_sided+adapt+order2"]
    assert not v.onesided and v.gamma_handling == "adapt" and v.order == 2
    with pytest.raises(ValueError, match="unknown SpDP variant"):
        spdp_params_variants(p, ["base+nope"])
    assert evaluation_window(10_000, 12.0, "snapshot_day", burn_in_hours=48, snapshot_day=2) == slice(576, 864)
    with pytest.raises(ValueError, match="does not fit"):
        evaluation_window(500, 12.0, "first_week", burn_in_hours=48)


def test_stats_helpers_consistency():
    # Fisher-z standard error used by window_evidence is the usual large-sample one
    rng = np.random.default_rng(9)
    r = [np.corrcoef(rng.standard_normal(300), rng.standard_normal(300))[0, 1] for _ in range(3000)]
    assert np.std(np.arctanh(r)) == pytest.approx(1 / math.sqrt(297), rel=0.05)


def test_causal_positive_filter_is_one_pass_of_eq10():
    from scipy import signal

    from dpgrid.mechanisms.spectral import apply_positive_filter, positive_filter_coefficients

    y = np.maximum(np.random.default_rng(10).normal(0, 1, 100), 0)
    out = apply_positive_filter(y, 0.39, 0.8, mode="causal")
    b, a = positive_filter_coefficients(0.39, 0.8)
    assert np.allclose(out, signal.lfilter(b, a, y, zi=signal.lfilter_zi(b, a) * y[0])[0])
    assert np.all(out >= 0)
    assert np.allclose(apply_positive_filter(np.ones(50), 0.39, 0.8, mode="causal"), 0.8)
    with pytest.raises(ValueError, match="unknown positive-filter mode"):
        apply_positive_filter(y, 0.39, 0.8, mode="zero")


def test_a_failing_variant_is_a_row_of_the_sweep_not_an_exception(monkeypatch):
    """Issue 28 (2): at 30-minute steps the causal_p variant raised SpectralMechanismError ('privatised PSD is not
    strictly positive') and took every spdp claim down. The sweep now writes that variant as a row with a
    ``failure`` naming the seed and the reason, and the other variants' rows are those of a sweep without it."""
    from dpgrid.mechanisms.spectral import SpectralMechanismError
    from dpgrid.papers.spdp import fidelity_sweeps as spdp_fidelity

    real = spdp_fidelity.run_spdp

    def run_or_fail(x, fs, p, b, rng_psd, rng_stream):
        if p.positive_filter_mode == "causal":
            raise SpectralMechanismError("privatised PSD is not strictly positive at bins [0, 1]")
        return real(x, fs, p, b, rng_psd, rng_stream)

    monkeypatch.setattr(spdp_fidelity, "run_spdp", run_or_fail)
    x = _ar_series(8_000, np.random.default_rng(8))
    base = SpDPParams(n_points=32, psd_window_days=7, gamma_handling="clip")
    variants = spdp_params_variants(base, ["base", "causal_p"])
    assert variants["causal_p"].positive_filter_mode == "causal" != variants["base"].positive_filter_mode

    def rng_for(*k):
        return np.random.default_rng([ord(c) for c in "/".join(map(str, k))])

    rows = spdp_fidelity.spdp_variant_rows(x, 12.0, variants, 0.05, slice(1000, 8000), rng_for, 2, tag="paper_b")
    by = {r["variant"]: r for r in rows}
    assert "SpectralMechanismError" in by["causal_p"]["failure"] and by["causal_p"]["failure"].startswith("seed 0")
    assert "correlation" not in by["causal_p"] and "failure" not in by["base"]
    alone = spdp_fidelity.spdp_variant_rows(
        x, 12.0, {"base": variants["base"]}, 0.05, slice(1000, 8000), rng_for, 2, tag="paper_b"
    )
    assert alone[0] == by["base"]
    # the claims note names the failed variant instead of printing nan
    import pandas as pd

    from dpgrid.papers.spdp.claims_context import _spdp_variant_note

    note = _spdp_variant_note(pd.DataFrame(rows), pd.DataFrame())
    assert "causal_p: failed (seed 0: SpectralMechanismError" in note and "nan" not in note
