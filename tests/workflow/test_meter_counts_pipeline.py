"""Real-data meter counts end to end (marked ``pipeline``): a few meters and hostile ids through the papers.

One Snakemake run (``--keep-going``) in a copy of the workflow, on CSV files written here:

* classdp on 5 households with the shipped ``forecast.arma.shards: 8`` (more shards than households) builds its
  claims table, Fig. 3 (whose title holds the meter id ``a$b``), and no note speaks of the stand-in's households;
* dpkmeans on 30 meters, one called ``NA``, builds its profiles (the id kept); its AC-OPF, which needs one meter per
  load bus, is refused before any job (tests/workflow/test_meter_matrix_pipeline.py);
* spdp on a file of 30 meters, one of which (not the one spdp reads) has a long gap, stops at the meter data,
  saying that every meter of the file is loaded and how to use one meter alone.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml

from tests.helpers.formats import smooth_load, write_readings_csv
from tests.helpers.repo import copy_workflow, run_snakemake
from tests.workflow.test_real_data_pipeline import deep_merge, small_config

pytestmark = pytest.mark.pipeline

START = "2020-03-02"  # a Monday


def _frame(ids, days, step, rng):
    periods = days * 1440 // step
    kw = np.round(smooth_load(len(ids), START, periods, step, rng), 4)
    t = pd.date_range(START, periods=periods, freq=f"{step}min").strftime("%Y-%m-%d %H:%M:%S")
    return pd.DataFrame({"meter_id": np.repeat(ids, len(t)), "timestamp": np.tile(t, len(ids)), "kw": kw.T.ravel()})


def _write_data(wd):
    rng = np.random.default_rng(38)
    data = wd / "my_data"
    data.mkdir()
    five = ["a$b", "M02", "M03", "M04", "M05"]
    write_readings_csv(data / "five.csv", _frame(five, 15, 60, rng))
    thirty = ["M01", "NA", *[f"M{i:02d}" for i in range(3, 31)]]
    frame = _frame(thirty, 21, 15, rng)
    write_readings_csv(data / "thirty.csv", frame)
    gap = (frame["meter_id"] == "M07") & frame["timestamp"].between("2020-03-10 00:00:00", "2020-03-10 20:00:00")
    write_readings_csv(data / "thirty_gap.csv", frame[~gap])
    common = {"source": "csv", "start": START}
    return {
        "classdp_forecast": {**common, "days": 14, "step_minutes": 60, "readings": "my_data/five.csv"},
        "spdp": {**common, "days": 21, "step_minutes": 15, "readings": "my_data/thirty_gap.csv"},
        "dpkmeans": {**common, "days": 3, "step_minutes": 60, "readings": "my_data/thirty.csv"},
    }


def _log(wd, pattern):
    return "\n".join(p.read_text(errors="replace") for p in sorted((wd / "logs").rglob(pattern)))


def test_few_meters_and_hostile_ids_through_the_papers(tmp_path):
    wd = copy_workflow(tmp_path / "wf")
    cfg = small_config(_write_data(wd), {})
    cfg = deep_merge(cfg, {"classdp": {"forecast": {"arma": {"shards": 8}}}})
    (wd / "config" / "meters.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    targets = [
        "results/classdp/claims.csv",
        "results/classdp/fig3.pdf",
        "results/dpkmeans/profiles_true.csv",
        "results/spdp/claims.csv",
    ]
    proc, elapsed = run_snakemake(
        wd, targets, "--keep-going", "--quiet", "progress", configfile="config/meters.yaml", timeout=1500
    )
    print(f"meter counts: snakemake {elapsed:.1f} s wall")
    assert proc.returncode != 0  # spdp stops, by design

    # classdp: 5 households over 8 ARMA shards, to its claims table; Fig. 3 drawn with the id a$b
    assert (wd / "results/classdp/claims.csv").is_file(), proc.stderr[-4000:]
    assert (wd / "results/classdp/fig3.pdf").stat().st_size > 0
    hh = pd.read_csv(wd / "results/classdp/forecast/households.csv", dtype=str, keep_default_na=False)
    assert sorted(hh["meter_id"]) == sorted(["a$b", "M02", "M03", "M04", "M05"])
    notes = " ".join(pd.read_csv(wd / "results/classdp/claims.csv", dtype=str, keep_default_na=False)["note"])
    assert "stand-in's households" not in notes and "stand-in's within-cluster" not in notes

    # dpkmeans: the id NA kept
    prof = pd.read_csv(wd / "results/dpkmeans/profiles_true.csv", dtype=str, keep_default_na=False)
    assert "NA" in set(prof["profile_id"]) and len(set(prof["profile_id"])) <= 30

    # spdp: the gap of a meter it does not read stops the meter data, saying every meter is loaded
    spdp = _log(wd, "meter_data_spdp.log") + proc.stderr
    assert "meter 'M07' has a gap" in spdp and "loads every meter of the file" in spdp and "first 'M01'" in spdp
    assert not (wd / "results/spdp/claims.csv").exists()
