"""The spdp experiment functions on a small synthetic home (15 weeks at 5 minutes), and the claims spec table."""

import copy

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpgrid.data.meter import MeterDataError
from dpgrid.papers.spdp.home_series import load_series
from dpgrid.papers.spdp.stages.adjacency_calibration import calibration
from dpgrid.papers.spdp.stages.release import spdp_release


@pytest.fixture(scope="module")
def cfg(rule_job):
    """The pipeline's spdp config as the rules pass it (config/quick.yaml over config/config.yaml, validated): the
    calibration job's and the release job's params, with the reduction filter's ``adapt`` handling of gamma
    (the configured default is ``clip``) so that the release below exercises the adaptation of F."""
    merged = copy.deepcopy({**rule_job("spdp_calibration").params.cfg, **rule_job("spdp_release").params.cfg})
    merged["streaming"]["reduction_filter"]["gamma_handling"] = "adapt"
    return merged


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    synth = pytest.importorskip("dpgrid.data.synthetic")
    md = synth.synthesize_meter_data(1, 0, "2019-01-07", 105, 5, np.random.default_rng(3))
    d = tmp_path_factory.mktemp("spdp")
    md.save(d / "readings.csv", d / "meters.csv")
    return d


def test_calibration_and_release_on_synthetic_home(home, cfg):
    s, fs, info = load_series(home / "readings.csv", home / "meters.csv", cfg)
    assert fs == 12.0 and info["weeks"] == pytest.approx(15.0)
    x = s.to_numpy()
    cal = calibration(x, fs, cfg)
    assert cal["b_spdp"] > 0 and cal["b_spdp_n_windows"] == sum(15 - w + 1 for w in range(7, 13))
    assert cal["trdp"]["4h"]["samples"] == 48 and cal["trdp"]["1week"]["samples"] == 2016
    assert cal["trdp"]["4h"]["min_distance"] <= cal["trdp"]["4h"]["median_distance"] <= cal["trdp"]["4h"]["b"]
    r1 = spdp_release(x, fs, cfg, cal["b_spdp"], np.random.default_rng(1), np.random.default_rng(2))
    r2 = spdp_release(x, fs, cfg, cal["b_spdp"], np.random.default_rng(1), np.random.default_rng(2))
    assert np.array_equal(r1["released"], r2["released"])  # seeded: reproducible
    assert r1["mechanism"].satisfies_proposition2
    assert np.all(r1["design"].reduction.gamma > 0)
    assert r1["released"].shape == x.shape


def test_too_short_data_is_rejected_naming_file_and_key(tmp_path, cfg):
    idx = pd.date_range("2019-01-07", periods=288 * 20, freq="5min")
    pd.DataFrame({"meter_id": "H1", "timestamp": idx.strftime("%Y-%m-%dT%H:%M:%S"), "kw": 1.0}).to_csv(
        tmp_path / "r.csv", index=False
    )
    pd.DataFrame({"meter_id": ["H1"], "customer_class": ["residential"]}).to_csv(tmp_path / "m.csv", index=False)
    with pytest.raises(MeterDataError, match=r"r\.csv.*2\.9 weeks.*spdp\.min_weeks"):
        load_series(tmp_path / "r.csv", tmp_path / "m.csv", cfg)
    with pytest.raises(MeterDataError, match="meter_id = 'X'"):
        load_series(tmp_path / "r.csv", tmp_path / "m.csv", {**cfg, "meter_id": "X"})


# ---- the claims spec table (dpgrid.papers.spdp.claims)


def test_claims_table_has_one_row_per_printed_number_with_the_papers_value():
    from dpgrid.mechanisms.spectral_adjacency import TRDP_READINGS
    from dpgrid.papers.spdp.claims import CLAIMS, claim_specs
    from dpgrid.papers.spdp.fidelity_calibration import PRINTED_TRDP
    from dpgrid.papers.spdp.paper import PAPER_VALUES, RELEASES

    ids = [s.claim_id for s in CLAIMS]
    assert len(ids) == len(set(ids))
    spec = {s.claim_id: s for s in CLAIMS}
    pv = lambda cid: spec[cid].paper_value  # noqa: E731
    for key in ("b_spdp", "b_trdp_4h", "b_trdp_1week"):
        assert pv(key) == PAPER_VALUES[key]
    for series, (mean, std) in PAPER_VALUES["table2"].items():
        assert (pv(f"table2_{series}_mean"), pv(f"table2_{series}_std")) == (mean, std)
        if series != "sensitive":
            assert (pv(f"table2_{series}_mean_paper_b"), pv(f"table2_{series}_std_paper_b")) == (mean, std)
    for series in RELEASES:
        for suffix in ("", "_paper_b"):
            got = tuple(pv(f"table3_{series}_{m}{suffix}") for m in ("noise_std", "corr", "snr"))
            assert got == PAPER_VALUES["table3"][series]
    for series, key in (("trdp_4h", "4h"), ("trdp_1week", "1week")):  # the calibration arithmetic: printed sigma
        for f in ("classical", "prop1", "prop1_paper_delta"):
            assert (
                pv(f"table3_{series}_sigma_{f}")
                == PAPER_VALUES["table3"][series][0]
                == PRINTED_TRDP[key]["sigma_kw"][0]
            )
    for metric, (value, dec) in PRINTED_TRDP["4h"].items():
        if metric != "sigma_kw":
            s = spec[f"table3_trdp_4h_{metric}_expected"]
            assert (s.paper_value, s.abs_tol) == (value, 0.5 * 10.0**-dec)
    beats = [i for i in ids if i.startswith("spdp_beats_trdp_above_4h_paper_b_")]
    assert beats == [f"spdp_beats_trdp_above_4h_paper_b_{rd}" for rd in TRDP_READINGS]
    # a run's table: one paper-parameter beats-claim per configured reading, in the configured order
    run = [s.claim_id for s in claim_specs(["min_all_pairs", "first_pair"])]
    assert [i for i in run if i.startswith("spdp_beats_trdp_above_4h_paper_b_")] == [
        "spdp_beats_trdp_above_4h_paper_b_min_all_pairs",
        "spdp_beats_trdp_above_4h_paper_b_first_pair",
    ]
    assert [i for i in run if "beats_trdp_above_4h_paper_b" not in i] == [i for i in ids if i not in beats]


@pytest.fixture(scope="module")
def claims_args(rule_job):
    from dpgrid.papers.spdp.claims import text_args

    return text_args(rule_job("spdp_claims").params.cfg)


def _evaluate(ids, ctx, args):
    from dpgrid.core.claims import evaluate_claims
    from dpgrid.papers.spdp.claims import CLAIMS

    specs = [s for s in CLAIMS if s.claim_id in ids]
    assert len(specs) == len(ids)
    return {c.claim_id: c for c in evaluate_claims("spdp", specs, ctx, args)}


def test_claims_sensitive_rows_are_calibration_targets_only_on_the_standin(claims_args):
    from types import SimpleNamespace

    t2 = pd.DataFrame({"mean_kw": [1.9], "std_kw": [1.74]}, index=pd.Index(["sensitive"], name="series"))
    ids = ["table2_sensitive_mean", "table2_sensitive_std"]
    on = _evaluate(ids, SimpleNamespace(standin=True, t2=t2, why="data differ"), claims_args)
    # 1.9 misses the printed 1.73 beyond its precision (+-0.005); 1.74 is the printed std
    assert [on[i].verdict for i in ids] == ["calibration missed", "calibration target"]
    assert on["table2_sensitive_mean"].reproduced_value == "1.9" and on["table2_sensitive_mean"].tolerance == "input"
    assert on["table2_sensitive_mean"].note.startswith("calibration missed: off by 0.17")
    off = _evaluate(ids, SimpleNamespace(standin=False, t2=t2, why="data differ: meter M7"), claims_args)
    assert [off[i].verdict for i in ids] == ["not comparable"] * 2
    assert off["table2_sensitive_std"].note == "data differ: meter M7"
    assert off["table2_sensitive_mean"].tolerance == "rel 0.1"


def test_claims_trdp_mean_tolerance_is_three_standard_errors_of_the_noise_mean(claims_args):
    """TrDP's released mean = sensitive mean + the mean of n i.i.d. noise values (sd noise_std / sqrt(n)): a
    TrDP mean is compared within 10 % or 3 standard errors; SpDP's within 10 % only."""
    from types import SimpleNamespace

    from dpgrid.papers.spdp.paper import PAPER_VALUES

    p4, psp = PAPER_VALUES["table2"]["trdp_4h"][0], PAPER_VALUES["table2"]["spdp"][0]
    idx = pd.Index(["spdp", "trdp_4h"], name="series")
    noise = [PAPER_VALUES["table3"][s][0] for s in idx]  # the paper's added noise: the rows are compared
    t3 = pd.DataFrame({"noise_std_kw": noise}, index=idx)  # n = 4: se(TrDP) = 0.46 kW, tolerance 1.38 kW

    def rows(d4, dsp):
        t2 = pd.DataFrame({"mean_kw": [psp + dsp, p4 + d4]}, index=idx)
        ctx = SimpleNamespace(standin=True, t2=t2, t3=t3, n_eval=4, ours_note="our-B")
        return _evaluate(["table2_trdp_4h_mean", "table2_spdp_mean"], ctx, claims_args)

    r = rows(1.35, 0.1 * psp - 0.01)
    assert r["table2_trdp_4h_mean"].tolerance == "rel 0.1 or abs 1.38"
    assert r["table2_trdp_4h_mean"].verdict == r["table2_spdp_mean"].verdict == "reproduced"
    assert r["table2_spdp_mean"].tolerance == "rel 0.1"  # SpDP's noise std does not widen it
    r = rows(1.42, 0.1 * psp + 0.01)
    assert r["table2_trdp_4h_mean"].verdict == r["table2_spdp_mean"].verdict == "differs"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(factor=st.floats(0.2, 200.0), series=st.sampled_from(["spdp", "trdp_4h", "trdp_1week"]))
def test_claims_of_a_release_with_other_noise_are_not_comparable(claims_args, factor, series):
    """A release's mean, std, correlation and SNR are compared with the printed ones only when its added noise is
    within 10 % of the paper's; otherwise 'not comparable' naming both noise levels (a noise-dominated release
    would match the printed 1-week correlation and SNR whatever its noise)."""
    from types import SimpleNamespace

    from dpgrid.papers.spdp.paper import PAPER_VALUES

    printed = PAPER_VALUES["table3"][series][0]
    idx = pd.Index([series], name="series")
    t3 = pd.DataFrame(
        {"noise_std_kw": [factor * printed], "correlation": [PAPER_VALUES["table3"][series][1]], "snr_db_paper": [0.0]},
        index=idx,
    )
    t2 = pd.DataFrame({"mean_kw": [PAPER_VALUES["table2"][series][0]], "std_kw": [1.0]}, index=idx)
    ctx = SimpleNamespace(standin=True, t2=t2, t3=t3, n_eval=10**6, ours_note="our-B")
    ids = [f"table2_{series}_mean", f"table2_{series}_std", f"table3_{series}_corr", f"table3_{series}_snr"]
    rows = _evaluate(ids, ctx, claims_args)
    same = abs(factor - 1.0) <= 0.1 - 1e-9
    for i in ids:
        if same:
            assert rows[i].verdict != "not comparable", i
        elif abs(factor - 1.0) > 0.1 + 1e-9:
            assert rows[i].verdict == "not comparable" and "is not the paper's" in rows[i].note, i
    assert _evaluate([f"table3_{series}_noise_std"], ctx, claims_args)[f"table3_{series}_noise_std"].verdict != (
        "not comparable"
    )


def test_claims_spdp_beats_trdp_needs_a_useful_spdp_and_a_duration_above_4h(claims_args):
    from types import SimpleNamespace

    cid = "spdp_beats_trdp_above_4h"

    def row(sp_corr, trdp, extra=(), standin=True):
        recs = [dict(mechanism="spdp", hours=4.0, reading="", calibration="", correlation=sp_corr, noise_std_kw=1.0)]
        recs += [
            dict(mechanism="trdp", hours=h, reading=rd, calibration=cal, correlation=c, noise_std_kw=n)
            for h, c, n, rd, cal in [(h, c, n, "max_all_pairs", claims_args["cal_label"]) for h, c, n in trdp]
            + list(extra)
        ]
        ctx = SimpleNamespace(
            sweep=pd.DataFrame(recs), cal_label=claims_args["cal_label"], standin=standin, why="data differ: meter M7"
        )
        return _evaluate([cid], ctx, claims_args)[cid]

    trdp = [(4.0, 0.9, 0.5), (8.0, 0.3, 2.0), (12.0, 0.2, 3.0)]
    # rows of another reading or calibration do not count
    other = [(8.0, 0.99, 0.1, "first_pair", claims_args["cal_label"]), (12.0, 0.99, 0.1, "max_all_pairs", "x@1")]
    r = row(0.5, trdp, other)
    assert r.verdict == "reproduced" and "beats TrDP at 2/2 durations > 4 h" in r.reproduced_value
    assert "TrDP corr at 4 h 0.9" in r.reproduced_value
    r = row(0.5, [*trdp[:2], (12.0, 0.6, 3.0)])  # higher TrDP correlation at 12 h
    assert r.verdict == "differs" and "loses at 12 h" in r.reproduced_value
    r = row(0.5, [*trdp[:2], (12.0, 0.2, 0.9)])  # lower TrDP noise at 12 h
    assert r.verdict == "differs" and "loses at 12 h" in r.reproduced_value
    r = row(0.05, [(4.0, 0.9, 0.5), (8.0, 0.03, 2.0), (12.0, 0.02, 3.0)])  # SpDP's release is noise: vacuous
    assert r.verdict == "differs" and "vacuously" in r.note and "2/2" in r.reproduced_value
    r = row(0.5, trdp[:1])  # nothing swept above 4 h
    assert r.verdict == "not comparable" and r.note.startswith("precondition failed")
    # issue 28 (3): on data other than the stand-in (gated 'not comparable' in every data row) it is not reproduced
    r = row(0.5, trdp, other, standin=False)
    assert r.verdict == "not comparable" and r.note == "precondition failed: data differ: meter M7"
    assert "beats TrDP at 2/2 durations > 4 h" in r.reproduced_value
