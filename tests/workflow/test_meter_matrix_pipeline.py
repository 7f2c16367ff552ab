"""Real-data meter counts, the whole matrix (marked ``pipeline``; the slow cases also ``weekly``).

classdp (forecast), spdp and dpkmeans (with its AC-OPF) on CSV files of 1, 5 and 30 meters: each case either
builds the paper's claims table, or is refused before any job (``snakemake -n``) with a message naming the config
key, its value and the minimum number of meters it needs (derived from the config: classdp's
``forecast.n_clusters``, dpkmeans' ``k``, the OPF's load buses per feeder). The multi-meter file with a gap in a
meter spdp does not read is tests/workflow/test_meter_counts_pipeline.py's case.

Every case runs in its own copy of the workflow with the sizes of tests/workflow/test_real_data_pipeline.py
(``SMALL``: classdp ``n_clusters: 3``, dpkmeans ``k: 3``). The refusals and spdp on one meter run on every push
(about a minute together); the other built cases run weekly (``python -m pytest -m weekly``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml

from tests.helpers.formats import smooth_load, write_readings_csv
from tests.helpers.repo import copy_workflow, run_snakemake
from tests.workflow.test_real_data_pipeline import small_config

pytestmark = pytest.mark.pipeline

START = "2020-03-02"  # a Monday
#: experiment -> its CSV's days, step; the paper that reads it
SIZES = {"classdp_forecast": (14, 60), "spdp": (21, 15), "dpkmeans": (3, 60)}
PAPER = {"classdp_forecast": "classdp", "spdp": "spdp", "dpkmeans": "dpkmeans"}
VERDICTS = {"reproduced", "differs", "not comparable", "calibration target"}


def _write_csv(wd, experiment: str, n_meters: int) -> dict:
    days, step = SIZES[experiment]
    rng = np.random.default_rng(1000 + n_meters)
    ids = [f"M{i:02d}" for i in range(1, n_meters + 1)]
    periods = days * 1440 // step
    kw = np.round(smooth_load(n_meters, START, periods, step, rng), 4)
    t = pd.date_range(START, periods=periods, freq=f"{step}min").strftime("%Y-%m-%d %H:%M:%S")
    frame = pd.DataFrame({"meter_id": np.repeat(ids, len(t)), "timestamp": np.tile(t, n_meters), "kw": kw.T.ravel()})
    (wd / "my_data").mkdir(exist_ok=True)
    path = f"my_data/{experiment}_{n_meters}.csv"
    write_readings_csv(wd / path, frame)
    return {"source": "csv", "start": START, "days": days, "step_minutes": step, "readings": path}


def _run(wd, targets, *, dry: bool, timeout: int = 1500):
    options = ["-n"] if dry else ["--quiet", "progress"]
    return run_snakemake(wd, targets, *options, configfile="config/meters.yaml", timeout=timeout)


def _setup(tmp_path, experiment: str, n_meters: int):
    wd = copy_workflow(tmp_path / "wf")
    experiments = {experiment: _write_csv(wd, experiment, n_meters)}
    for other in SIZES:  # the other experiments: 30 meters (never the subject of the case)
        if other != experiment:
            experiments[other] = _write_csv(wd, other, 30)
    cfg = small_config(experiments, {})
    (wd / "config" / "meters.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    return wd


# (experiment, meters, targets, words every line of the refusal must hold: key = value, minimum, data's count)
REFUSED = [
    pytest.param(
        "classdp_forecast",
        1,
        ["results/classdp/claims.csv"],
        ["classdp.forecast.n_clusters = 3 needs at least 4 meters", "data.experiments.classdp_forecast", "hold 1"],
        id="classdp-1",
    ),
    pytest.param(
        "classdp_forecast",
        3,
        ["results/classdp/claims.csv"],
        ["classdp.forecast.n_clusters = 3 needs at least 4 meters", "hold 3"],
        id="classdp-3",
    ),
    pytest.param(
        "dpkmeans",
        1,
        ["results/dpkmeans/claims.csv"],
        ["dpkmeans.k = 3 needs at least 4 meters", "data.experiments.dpkmeans", "hold 1"],
        id="dpkmeans-1",
    ),
    pytest.param(
        "dpkmeans",
        30,
        ["results/dpkmeans/claims_opf.csv"],
        ["grid.experiment.load_buses = 'loaded' needs at least 85 meters", "ieee123", "hold 30"],
        id="dpkmeans-30-opf",
    ),
    pytest.param(
        "dpkmeans",
        30,
        ["results/dpkmeans/fig13.pdf"],
        ["grid.experiment.load_buses = 'loaded' needs at least 84 meters", "case141", "hold 30"],
        id="dpkmeans-30-fig13",
    ),
    pytest.param(
        "dpkmeans",
        30,
        [],  # the default target: its claims include the OPF's
        ["grid.experiment.load_buses = 'loaded' needs at least 85 meters", "hold 30"],
        id="dpkmeans-30-default",
    ),
]


@pytest.mark.parametrize(("experiment", "n_meters", "targets", "words"), REFUSED)
def test_too_few_meters_are_refused_before_any_job(tmp_path, experiment, n_meters, targets, words):
    wd = _setup(tmp_path, experiment, n_meters)
    proc, elapsed = _run(wd, targets, dry=True, timeout=300)
    print(f"{experiment} x {n_meters} refused: snakemake -n {elapsed:.1f} s wall")
    assert proc.returncode != 0
    msg = proc.stdout + proc.stderr
    assert "invalid config" in msg, msg[-3000:]
    for w in words:
        assert w in msg, (w, msg[-3000:])
    assert (
        "Traceback (most recent call last)" not in msg
        and not (wd / "results").exists()
        and not (wd / "resources").exists()
    )


# (experiment, meters): built to the paper's claims table; spdp reads the file's first meter
BUILT = [
    pytest.param("spdp", 1, id="spdp-1"),
    pytest.param("spdp", 5, marks=pytest.mark.weekly, id="spdp-5"),
    pytest.param("spdp", 30, marks=pytest.mark.weekly, id="spdp-30"),
    pytest.param("classdp_forecast", 4, marks=pytest.mark.weekly, id="classdp-4"),
    pytest.param("classdp_forecast", 30, marks=pytest.mark.weekly, id="classdp-30"),
    pytest.param("dpkmeans", 5, marks=pytest.mark.weekly, id="dpkmeans-5"),
    pytest.param("dpkmeans", 30, marks=pytest.mark.weekly, id="dpkmeans-30"),
]


@pytest.mark.parametrize(("experiment", "n_meters"), BUILT)
def test_enough_meters_build_the_claims_table(tmp_path, experiment, n_meters):
    wd = _setup(tmp_path, experiment, n_meters)
    paper = PAPER[experiment]
    proc, elapsed = _run(wd, [f"results/{paper}/claims.csv"], dry=False)
    print(f"{experiment} x {n_meters} built: snakemake {elapsed:.1f} s wall")
    logs = "\n".join(
        f"== {p.relative_to(wd)}\n{p.read_text(errors='replace')[-1500:]}"
        for p in sorted((wd / "logs").rglob("*.log"))
        if "rror" in p.read_text(errors="replace")
    )
    assert proc.returncode == 0, f"{proc.stderr[-4000:]}\n{logs}"
    meters = pd.read_csv(wd / "resources" / "meters" / experiment / "meters.csv", dtype=str, keep_default_na=False)
    assert len(meters) == n_meters
    claims = pd.read_csv(wd / "results" / paper / "claims.csv", dtype=str, keep_default_na=False)
    assert len(claims) >= 3 and set(claims["paper"]) == {paper} and set(claims["verdict"]) <= VERDICTS
    # a claim the data cannot evaluate says why, never a bare verdict
    blank = claims[(claims["verdict"] == "not comparable") & (claims["note"].str.strip() == "")]
    assert blank.empty, blank
