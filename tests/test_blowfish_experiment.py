"""The blowfish rules' bodies (dpgrid.experiments.blowfish) on a small config: outputs, determinism, errors."""

import copy
import hashlib
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import yaml

from conftest import REPO
from dpgrid.claims import read_claims
from dpgrid.experiments import blowfish as bf
from dpgrid.io import read_table
from dpgrid.seeds import job_rng


def small_config():
    cfg = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    c = cfg["blowfish"]
    c.update(households=60, seeds=3)
    c["adversary"]["small_households"] = 4
    c["zero_sweep"].update(thresholds=[0.0, 0.03], seeds=2)
    c["audit"].update(samples=20000, steps=[0, 40], min_count=100)
    cfg["seed"] = 7
    return cfg


class Smk(SimpleNamespace):
    pass


def run_all(config, out: Path):
    o = lambda name: str(out / name)  # noqa: E731
    bf.runs_job(Smk(config=config, output=Smk(runs=o("runs.csv"), profiles=o("profiles.csv"), adversary=o("adv.csv"))))
    bf.tables_job(Smk(config=config, input=Smk(runs=o("runs.csv"), adversary=o("adv.csv")),
                      output=Smk(rmsre=o("table_rmsre.csv"), adversary=o("table_adv.csv"))))
    bf.zero_sweep_job(Smk(config=config, output=Smk(runs=o("sweep_runs.csv"), table=o("sweep.csv"), example=o("example.csv"))))
    bf.audit_job(Smk(config=config, output=Smk(table=o("audit.csv"))))
    bf.claims_job(Smk(config=config, input=Smk(runs=o("runs.csv"), sweep=o("sweep_runs.csv"), audit=o("audit.csv"),
                                               adversary=o("adv.csv")), output=[o("claims.csv")]))


def test_jobs_write_consistent_and_byte_identical_tables(tmp_path):
    cfg = small_config()
    run_all(cfg, tmp_path / "a")
    run_all(copy.deepcopy(cfg), tmp_path / "b")
    for f in sorted((tmp_path / "a").iterdir()):
        assert hashlib.sha256(f.read_bytes()).digest() == hashlib.sha256((tmp_path / "b" / f.name).read_bytes()).digest(), f.name
    runs = read_table(tmp_path / "a" / "runs.csv")
    assert len(runs) == 3
    # printed RMSRE = plain RMS relative error / sqrt(T)
    np.testing.assert_allclose(runs["rms_relative_blowfish"] / np.sqrt(96), runs["rmsre_printed_blowfish"], rtol=1e-9)
    assert (runs["lambda_blowfish_leq_naive"] == 1).all()
    assert (runs["eps_total_theorem2"] == 48).all()
    prof = read_table(tmp_path / "a" / "profiles.csv")
    assert (prof["lambda_blowfish"] <= prof["lambda_naive"]).all()
    sweep = read_table(tmp_path / "a" / "sweep.csv")
    fixed = sweep[sweep["initial"] == "fixed p=0"].set_index("threshold")
    # a degenerate start with every night get-up probability clipped to 0: kappa empty all night, real gain
    assert fixed.loc[0.03, "steps_lambda_zero_mean"] >= 28 and fixed.loc[0.03, "ratio_expected_mean"] > 1.1
    cyc = read_table(tmp_path / "a" / "sweep_runs.csv").query("initial == 'cyclostationary'")
    # no certain household: kappa^t = everyone, lambda^t = alpha max_h u_h constant, gain = u_max / max_h u_h
    assert (cyc["steps_lambda_zero"] == 0).all() and (cyc["min_kappa"] == 60).all()
    np.testing.assert_allclose(cyc["ratio_expected"] * cyc["mean_lambda_ratio"], 1.0, rtol=1e-9)
    audit = read_table(tmp_path / "a" / "audit.csv")
    real = audit[audit["mechanism"].isin(["blowfish", "naive"])]
    assert real["within_eps"].all()
    assert not audit[(audit["mechanism"] == "control") & (audit["pair"] == "worst_case")]["within_eps"].any()
    claims = {c.claim_id: c for c in read_claims(tmp_path / "a" / "claims.csv")}
    assert claims["blowfish_privacy_audit"].verdict == "reproduced"
    assert claims["blowfish_gain_needs_zero_transitions"].verdict == "not comparable"


def test_simulated_day_rates_follow_eq1_and_common_noise_orders_errors():
    cfg = small_config()
    cfg["blowfish"]["noise_coupling"] = "common"
    s = bf.settings_from_config(cfg)
    day = bf.simulate_day(s, job_rng(1, "test"))
    np.testing.assert_allclose(day.rates, s.alpha * day.consumption.sum(axis=1) + s.beta)
    # same standard draws scaled by lambda_B <= lambda_N: every Blowfish error is at most the naive one
    assert (np.abs(day.released["blowfish"] - day.rates) <= np.abs(day.released["naive"] - day.rates) + 1e-12).all()


def test_bad_config_values_name_the_field():
    cfg = small_config()
    cfg["blowfish"]["clipping"]["mode"] = "round"
    with pytest.raises(ValueError, match="blowfish.clipping"):
        bf.settings_from_config(cfg)
    cfg = small_config()
    cfg["blowfish"]["periods"] = cfg["blowfish"]["periods"][:3]
    with pytest.raises(ValueError, match="blowfish.periods"):
        bf.settings_from_config(cfg)
    cfg = small_config()
    del cfg["blowfish"]["epsilon"]
    with pytest.raises(KeyError, match="blowfish.epsilon"):
        bf.settings_from_config(cfg)


def test_schema_accepts_the_configs_and_rejects_unknown_keys():
    from snakemake.utils import validate

    schema = str(REPO / "workflow" / "schemas" / "blowfish.schema.yaml")
    full = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["blowfish"]
    validate(copy.deepcopy(full), schema)
    bad = copy.deepcopy(full)
    bad["clipping"]["rule"] = "x"
    with pytest.raises(Exception, match="rule"):
        validate(bad, schema)
    bad = copy.deepcopy(full)
    bad["epsilon"] = 0
    with pytest.raises(Exception):
        validate(bad, schema)


def test_figure_jobs_draw_from_the_tables(tmp_path):
    cfg = small_config()
    run_all(cfg, tmp_path)
    o = lambda name: str(tmp_path / name)  # noqa: E731
    bf.fig2_job(Smk(config=cfg, input=Smk(profiles=o("profiles.csv")), output=Smk(pdf=o("fig2.pdf"))))
    bf.fig_lambda_job(Smk(config=cfg, input=Smk(profiles=o("profiles.csv"), example=o("example.csv")),
                          output=Smk(pdf=o("fig_lambda.pdf"))))
    bf.fig_zero_sweep_job(Smk(config=cfg, input=Smk(table=o("sweep.csv")), output=Smk(pdf=o("fig_zero.pdf"))))
    for stem in ("fig2", "fig_lambda", "fig_zero"):
        assert (tmp_path / f"{stem}.pdf").read_bytes().startswith(b"%PDF")
        assert (tmp_path / f"{stem}.png").stat().st_size > 10_000
    ex = read_table(tmp_path / "example.csv")
    assert (ex["lambda_blowfish"] <= ex["lambda_naive"]).all() and (ex["lambda_blowfish"] == 0).any()
