"""The validation command (python -m dpgrid.data.validate) and the meter_data resources callables."""

import subprocess
import sys

import pandas as pd
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpgrid.data import resources
from dpgrid.data.validate import main
from tests.helpers.formats import write_readings_csv
from tests.helpers.repo import REPO


def _rows(meters=("A", "B"), days=2, step="30min", skip=()):
    t = pd.date_range("2020-03-02", periods=int(pd.Timedelta(days=days) / pd.Timedelta(step)), freq=step)
    return [
        (m, f"{x:%Y-%m-%d %H:%M:%S}", 0.5 + k + 0.01 * i)
        for k, m in enumerate(meters)
        for i, x in enumerate(t)
        if (m, i) not in skip
    ]


def test_validate_summary_and_exit_status(tmp_path, capsys):
    path = write_readings_csv(tmp_path / "r.csv", _rows(skip={("A", 7), ("B", 20), ("B", 21)}))
    meters = tmp_path / "m.csv"
    meters.write_text("meter_id,customer_class\nA,residential\nB,commercial\n")
    assert main([str(path), "--meters", str(meters), "--step-minutes", "60"]) == 0
    out = capsys.readouterr().out
    assert f"OK: {path}" in out
    assert "meters:  2 (residential 1, commercial 1; from" in out
    assert "step:    30 min in the file; checked at 60 min" in out
    assert "span:    2020-03-02 00:00:00 .. 2020-03-03 23:30:00" in out
    assert "window:  2020-03-02 00:00:00 .. 2020-03-04 00:00:00: 48 interval(s) per meter" in out
    # A misses one half-hour (hour 3 has 50 % < 80 %: missing, filled); B misses the hour 10:00 entirely
    assert "gaps:    2 interval(s) filled by linear interpolation in 2 meter(s)" in out
    bad = write_readings_csv(tmp_path / "bad.csv", _rows() + [("A", "2020-03-02 00:00:00", 1e6)])
    assert main([str(bad)]) == 1
    err = capsys.readouterr().err
    assert (
        err.startswith(f"INVALID: {bad}: ") and "outside the plausible range [-50, 500] kW in row(s) 194 (1e+06)" in err
    )
    assert main([str(bad), "--plausible-kw", "-1", "1e7"]) == 1  # now the duplicate is what is wrong
    assert (
        "duplicate (meter_id, timestamp) in row(s) 194 ('A, 2020-03-02 00:00:00 as in row 2')"
        in capsys.readouterr().err
    )


def test_validate_takes_an_experiments_settings(tmp_path, capsys):
    path = write_readings_csv(tmp_path / "r.csv", _rows(days=3, skip={("A", i) for i in range(60, 80)}))
    cfg = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    cfg["data"]["experiments"]["dpkmeans"] = {
        "source": "csv",
        "start": "2020-03-02",
        "days": 1,
        "step_minutes": 60,
        "readings": str(path),
    }
    cfg_path = tmp_path / "config.yaml"
    cfg_path.write_text(yaml.safe_dump(cfg))
    # the window is the first day: the 10-hour gap of day 2 does not matter
    assert main(["--config", str(cfg_path), "--experiment", "dpkmeans"]) == 0
    assert "window:  2020-03-02 00:00:00 .. 2020-03-03 00:00:00: 24 interval(s) per meter" in capsys.readouterr().out
    assert main(["--config", str(cfg_path), "--experiment", "dpkmeans", "--days", "2"]) == 1
    err = capsys.readouterr().err
    assert "meter 'A' has a gap of 10 interval(s) of 60 min in the window: first missing 2020-03-03 06:00:00" in err
    assert main(["--config", str(cfg_path), "--experiment", "spdp"]) == 1
    assert "source is 'spdp_standin'; this command checks csv sources" in capsys.readouterr().err


def test_validate_runs_as_a_module(tmp_path):
    path = write_readings_csv(
        tmp_path / "r.csv", [("A", "2020-03-02T00:00:00+01:00", 1.0), ("A", "2020-03-02T00:30:00+01:00", 1.0)]
    )
    env = {"PYTHONPATH": str(REPO / "src")}
    run = subprocess.run(
        [sys.executable, "-m", "dpgrid.data.validate", str(path)], capture_output=True, text=True, check=False, env=env
    )
    assert run.returncode == 1 and "set data.experiments.<experiment>.timezone" in run.stderr
    run = subprocess.run(
        [sys.executable, "-m", "dpgrid.data.validate", str(path), "--timezone", "Europe/Paris"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert (
        "span:    2020-03-02 00:00:00 .. 2020-03-02 00:30:00 (local wall-clock time; UTC offsets converted to "
        "Europe/Paris)" in run.stdout
    )


def test_resources_scale_with_input_size(tmp_path):
    assert resources.meter_data_mem_mb([]) == 600 and resources.meter_data_runtime_min([]) == 2
    assert resources.meter_data_mem_mb([str(tmp_path / "not_yet.csv")]) == 600  # dry run: file missing
    small = tmp_path / "small.csv"
    small.write_bytes(b"x" * 1000)
    assert resources.meter_data_mem_mb([str(small)]) == 600 and resources.meter_data_runtime_min(str(small)) >= 2
    big = tmp_path / "big.csv"
    with open(big, "wb") as fh:  # a sparse 221 MB file: the calibration point
        fh.truncate(221_760_030)
    mem = resources.meter_data_mem_mb([str(big), str(small)])
    # at least the measured peak of the job on that file (docs/data.md), with a margin
    assert mem >= 1.3 * resources.MEASURED_PEAK_MB[221.8] and mem % 50 == 0
    assert resources.meter_data_runtime_min([str(big)]) * 60 >= 5 * resources.MEASURED_CPU_S[221.8]
    half = tmp_path / "half.csv"
    with open(half, "wb") as fh:
        fh.truncate(110_000_000)
    assert 600 <= resources.meter_data_mem_mb([str(half)]) < mem


@pytest.mark.parametrize("size_mb", [0.2, 55.4, 221.8])
def test_resources_cover_every_measurement(size_mb):
    """The fit with its margin stays above each measured peak (benchmarks/bench_data.py --csv)."""
    mem = resources.MARGIN * (resources.BASE_MB + resources.MB_PER_MB * size_mb)
    assert mem >= 1.3 * resources.MEASURED_PEAK_MB[size_mb]


def _level_rows(days=2, step="30min"):
    """A varying home, a constant meter, an all-zero meter, a home exported in W (all under 500) and a shop."""
    t = pd.date_range("2020-03-02", periods=int(pd.Timedelta(days=days) / pd.Timedelta(step)), freq=step)
    shape = [0.4 + 0.3 * ((i % 48) > 34) + 0.01 * (i % 7) for i in range(len(t))]
    level = {"home": 1.0, "flat": 0.0, "zero": 0.0, "in_watts": 600.0, "shop": 300.0}
    rows = []
    for m, f in level.items():
        for i, x in enumerate(t):
            v = {"flat": 0.75, "zero": 0.0}.get(m, f * shape[i] if m == "home" else f * shape[i] / 1.1)
            rows.append((m, f"{x:%Y-%m-%d %H:%M:%S}", round(v, 4)))
    return rows


def test_constant_zero_and_watt_meters_are_named_at_validation(tmp_path, capsys, caplog):
    """Legal but unusable or suspicious meters are named with the cause when the file is checked (validate
    command, and the meter_data job's log through load_csv): a constant meter, an all-zero meter, and a
    residential meter whose mean (about 300 'kW', every value under the 500 kW plausible bound) is a home in W;
    a commercial meter at the same level and the varying home are not flagged."""
    import logging

    from dpgrid.data.csv_loader import load_csv

    path = write_readings_csv(tmp_path / "r.csv", _level_rows())
    meters = tmp_path / "m.csv"
    meters.write_text(
        "meter_id,customer_class\nhome,residential\nflat,residential\nzero,residential\nin_watts,residential\n"
        "shop,commercial\n"
    )
    assert main([str(path), "--meters", str(meters)]) == 0
    out = capsys.readouterr().out
    warnings = [line for line in out.splitlines() if line.startswith("WARNING: ")]
    assert len(warnings) == 3, out
    assert any("meter 'flat' is constant (every reading is 0.75 kW" in w for w in warnings)
    assert any("meter 'zero' is constant (every reading is 0 kW (an all-zero meter" in w for w in warnings)
    assert any("meter 'in_watts' (residential) averages" in w and "is the unit W?" in w for w in warnings)
    assert not any("'home'" in w or "'shop'" in w for w in warnings)
    with caplog.at_level(logging.WARNING, logger="dpgrid.data.csv_loader"):
        load_csv(path, meters, start="2020-03-02", days=2, step_minutes=30, min_coverage=0.8, max_fill_intervals=8)
    logged = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert sorted(w.removeprefix("WARNING: ") for w in warnings) == sorted(logged)


@pytest.mark.parametrize("meter, value", [("flat", "0.75 kW"), ("zero", "0 kW")])
def test_spdp_names_a_constant_or_all_zero_meter_before_calibrating(tmp_path, meter, value):
    """spdp on a constant (or all-zero) meter stops when it loads the series, naming the file, the meter and the
    cause, instead of 'adjacency parameter B must be positive' or 'math domain error' deep in the calibration."""
    from dpgrid.data.csv_loader import load_csv
    from dpgrid.data.meter import MeterDataError
    from dpgrid.papers.spdp.home_series import load_series

    md, _ = load_csv(
        write_readings_csv(tmp_path / "r.csv", _level_rows(days=14)),
        start="2020-03-02",
        days=14,
        step_minutes=30,
        min_coverage=0.8,
        max_fill_intervals=8,
    )
    md.save(tmp_path / "readings.csv", tmp_path / "meters.csv")
    cfg = {"meter_id": meter, "min_weeks": 1}
    with pytest.raises(MeterDataError) as err:
        load_series(tmp_path / "readings.csv", tmp_path / "meters.csv", cfg)
    msg = str(err.value)
    assert msg.startswith(f"{tmp_path / 'readings.csv'}: meter '{meter}' is constant (every reading is {value}")
    assert "B_SpDP would be 0" in msg
    series, _, info = load_series(tmp_path / "readings.csv", tmp_path / "meters.csv", {**cfg, "meter_id": "home"})
    assert info["meter_id"] == "home" and series.std() > 0


def _utc_rows(meters, start_utc, end_utc, zone="Europe/London", step="30min"):
    t = pd.date_range(start_utc, end_utc, freq=step, inclusive="left", tz="UTC").tz_convert(zone)
    return [(m, x.isoformat(sep=" "), 0.5 + k + 0.01 * (i % 48)) for k, m in enumerate(meters) for i, x in enumerate(t)]


def _window_args(path, start, days, zone="Europe/London"):
    return [str(path), "--timezone", zone, "--start", start, "--days", str(days), "--step-minutes", "30"]


@pytest.mark.parametrize("meters", [("A",), ("A", "B", "C")])
def test_validate_counts_a_clock_change_once_and_only_in_the_window(tmp_path, capsys, meters):
    """A complete record across the DST start: no gap is filled, the hour the clock skips (2 half-hours) is reported
    once, on the DST line; the repeated hour of a DST end outside the window is not counted in it."""
    # complete 30-min records in UTC from 2020-03-26 to 2020-04-01 and 2020-10-22 to 2020-10-28 (London)
    rows = _utc_rows(meters, "2020-03-26", "2020-04-01") + _utc_rows(meters, "2020-10-22", "2020-10-28")
    path = write_readings_csv(tmp_path / "r.csv", rows)
    assert main(_window_args(path, "2020-03-27", 4)) == 0
    out = capsys.readouterr().out
    assert "gaps:    0 interval(s) filled by linear interpolation in 0 meter(s)" in out
    assert "DST:     2 interval(s) per meter skipped by the clock filled; 0 reading(s) of the repeated hour" in out
    assert main(_window_args(path, "2020-10-23", 2)) == 0  # the repeated hour (25 Oct) is after the window
    out = capsys.readouterr().out
    assert "DST:" not in out
    assert main(_window_args(path, "2020-10-24", 3)) == 0  # the window holds it: 2 half-hours per meter averaged
    out = capsys.readouterr().out
    assert f"0 interval(s) per meter skipped by the clock filled; {2 * len(meters)} reading(s) of the repeated" in out


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n_meters=st.integers(1, 2), weeks=st.integers(1, 4), pseudo=st.integers(1, 6), days=st.integers(1, 3))
def test_validate_agrees_with_the_pipeline_on_pseudo_meters(tmp_path_factory, capsys, n_meters, weeks, pseudo, days):
    """The validator takes pseudo_meters from the experiment (and --pseudo-meters): it says OK exactly when the
    meter_data loader (load_csv, the same settings) accepts the file, and names the same problem otherwise."""
    from dpgrid.data.csv_loader import load_csv
    from dpgrid.data.problems import MeterDataError

    d = tmp_path_factory.mktemp("pseudo")
    path = write_readings_csv(d / "r.csv", _rows(meters=("A", "B")[:n_meters], days=7 * weeks))
    cfg = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    spec = {"source": "csv", "start": "2020-03-02", "days": days, "step_minutes": 60, "readings": str(path)}
    cfg["data"]["experiments"]["dpkmeans"] = {**spec, "pseudo_meters": pseudo}
    (d / "c.yaml").write_text(yaml.safe_dump(cfg))
    try:
        md, _ = load_csv(
            path,
            None,
            start="2020-03-02",
            days=days,
            step_minutes=60,
            pseudo_meters=pseudo,
            min_coverage=cfg["data"]["resample"]["min_coverage"],
            max_fill_intervals=cfg["data"]["resample"]["max_fill_intervals"],
            key="data.experiments.dpkmeans",
        )
        want = None
    except MeterDataError as e:
        want = str(e)
    status = main(["--config", str(d / "c.yaml"), "--experiment", "dpkmeans"])
    out = capsys.readouterr()
    if want is None:
        assert status == 0 and f"pseudo:  {pseudo} pseudo-meter(s)" in out.out, out
    else:
        assert status == 1 and want in out.err


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n_meters=st.integers(1, 4), gap_in=st.integers(0, 3), gap=st.integers(9, 30))
def test_a_gap_in_a_file_of_several_meters_says_every_meter_is_loaded(tmp_path_factory, n_meters, gap_in, gap):
    """A meter of the file that fails the gap rule stops the experiment even when a paper reads another meter
    (spdp reads spdp.meter_id): the message names that meter's gap and, for a file of several meters, says that
    every meter is loaded, which meter is the first and how to use one meter alone."""
    from dpgrid.data.csv_loader import load_csv
    from dpgrid.data.problems import MeterDataError

    meters = ("M1", "M2", "M3", "M4")[:n_meters]
    bad = meters[gap_in % n_meters]
    path = write_readings_csv(
        tmp_path_factory.mktemp("gap") / "r.csv", _rows(meters=meters, skip={(bad, i) for i in range(10, 10 + gap)})
    )
    with pytest.raises(MeterDataError) as err:
        load_csv(path, None, start="2020-03-02", days=2, step_minutes=30, min_coverage=0.8, max_fill_intervals=8)
    msg = str(err.value)
    assert f"meter {bad!r} has a gap of {gap} interval(s)" in msg
    assert ("loads every meter of the file" in msg) == (n_meters > 1)
    if n_meters > 1:
        assert "first 'M1'" in msg and "spdp.meter_id" in msg and "that meter's rows alone" in msg


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 10**9),
    days=st.integers(1, 3660),
    step=st.sampled_from([1, 5, 15, 60]),
    limit=st.integers(600, 10**6),
    key=st.sampled_from(["n_residential", "n_meters", "pseudo_meters"]),
)
def test_experiments_too_big_for_memory_are_refused_naming_the_key(n, days, step, limit, key):
    """The meter_data job declares memory from the readings a source makes (meters x intervals) and a config whose
    experiment needs more than the limit is refused before any job, naming the key and its value."""
    spec = {"source": "synthetic", "start": "2019-01-07", "days": days, "step_minutes": step, key: n}
    need = resources.meter_data_mem_mb(None, spec)
    readings = n * days * 1440 // step
    assert need >= resources.MARGIN * resources.MB_PER_MB * readings * resources.CSV_BYTES_PER_READING / 1e6
    problems = resources.oversized_experiments({"big": spec}, limit_mb=limit)
    assert bool(problems) == (need > limit)
    if problems:
        assert f"data.experiments.big.{key} = {n}" in problems[0] and f"{need:,} MB" in problems[0]


def test_declared_memory_of_the_shipped_experiments_is_unchanged():
    cfg = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    assert {resources.meter_data_mem_mb(None, s) for s in cfg["data"]["experiments"].values()} == {600}
    assert resources.meter_data_mem_mb(None, None) == 600  # a rule's declared value (no job)
