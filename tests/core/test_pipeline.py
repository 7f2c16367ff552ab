"""The job contract (dpgrid.core.pipeline): the package-location check, run_script's logging, failure and
usage records, and that a job sees only its params."""

import logging

import pytest

from dpgrid.core.pipeline import StalePackageError, check_package_location, run_script
from tests.helpers.repo import REPO


def test_package_location_check(tmp_path):
    check_package_location(REPO / "workflow" / "scripts" / "report")  # this checkout: fine
    other = tmp_path / "other"
    (other / "workflow" / "scripts" / "x").mkdir(parents=True)
    (other / "Snakefile").write_text("")
    with pytest.raises(StalePackageError, match="pip install -e"):
        check_package_location(other / "workflow" / "scripts" / "x")


def _drop_job_logging():
    """Remove the handlers run_script installed (its stderr handler holds the test's captured stream)."""
    root = logging.getLogger()
    for h in list(root.handlers):
        h.close()
        root.removeHandler(h)


class FakeSmk:
    """What Snakemake hands a script: files, params, wildcards, resources (and a config the job never sees)."""

    def __init__(self, log, out):
        self.log, self.output, self.rule = [str(log)], [str(out)], "fake_rule"
        self.input, self.params, self.wildcards, self.threads, self.resources = [], [], [], 1, {}
        self.config = {"seed": 1}
        self.scriptdir = str(REPO / "workflow" / "scripts" / "report")


def test_run_script_logs_failure_to_rule_log(tmp_path, capfd):
    smk = FakeSmk(tmp_path / "r.log", tmp_path / "o.txt")

    def fails(_):
        raise ValueError("bad value 42 in field 'x'")

    with pytest.raises(SystemExit) as stop:
        run_script(smk, fails)
    assert stop.value.code == 1
    err = capfd.readouterr().err.strip().splitlines()
    _drop_job_logging()
    text = (tmp_path / "r.log").read_text()
    assert "Traceback" in text and "bad value 42" in text  # the full traceback: in the rule log
    assert (
        err[-1] == f"rule fake_rule failed: ValueError: bad value 42 in field 'x' (traceback in {tmp_path / 'r.log'})"
    )
    assert not any("Traceback" in line for line in err)  # stderr: one line, no second traceback


def test_job_sees_no_config(tmp_path):
    smk = FakeSmk(tmp_path / "r.log", tmp_path / "o.txt")
    seen = {}

    def job_fn(job):
        seen["has_config"] = hasattr(job, "config")

    run_script(smk, job_fn)
    _drop_job_logging()
    assert seen == {"has_config": False}


def test_unwritable_output_folder_stops_before_any_job(tmp_path):
    from dpgrid.core.pipeline import OutputDirError, check_writable

    check_writable([tmp_path / "results", tmp_path / "logs"])  # absent folders in a writable place: fine
    (tmp_path / "results").write_text("a file where the results folder should be")
    with pytest.raises(OutputDirError, match=r"cannot write the pipeline's outputs to .*results/.*nothing was run"):
        check_writable([tmp_path / "results"])


def test_run_script_records_the_jobs_own_cpu_and_peak_memory(tmp_path):
    """The usage record beside the log holds the kernel's counters: CPU at least what the job burned, peak memory
    the process's high-water mark as /proc reports it (an independent reading of the same counter)."""
    import json
    import time
    from pathlib import Path

    import numpy as np

    from dpgrid.core.pipeline import usage_path

    smk = FakeSmk(tmp_path / "r.log", tmp_path / "o.txt")
    burned = {}

    def job_fn(_):
        block = np.ones(40_000_000)  # 320 MB, every page touched
        t0 = time.process_time()
        while time.process_time() - t0 < 0.3:
            block[:1000] += 1.0
        burned["cpu"] = time.process_time()
        burned["mb"] = block.nbytes / 2**20

    run_script(smk, job_fn)
    _drop_job_logging()
    usage = json.loads(usage_path(tmp_path / "r.log").read_text())
    assert usage["cpu_s"] >= burned["cpu"] - 1e-6
    assert usage["max_rss_mb"] >= burned["mb"]
    status = Path("/proc/self/status")
    if status.is_file():  # Linux: VmHWM is the same high-water mark in kB
        hwm = int(next(line.split()[1] for line in status.read_text().splitlines() if line.startswith("VmHWM:")))
        assert usage["max_rss_mb"] == pytest.approx(hwm / 1024, rel=0.01)
    assert "peak memory" in (tmp_path / "r.log").read_text()


def test_run_script_freezes_what_the_job_leaves_for_a_quick_exit(tmp_path):
    """After the job and its usage record, every object still alive is in the collector's permanent generation, so
    the interpreter's shutdown collections do not traverse them: here 5,000 cyclic objects the job keeps alive."""
    import gc

    smk = FakeSmk(tmp_path / "r.log", tmp_path / "o.txt")
    kept = []

    def job_fn(_):
        for i in range(5000):
            node = {"i": i}
            node["self"] = node  # a reference cycle: only the collector could free it
            kept.append(node)

    gc.unfreeze()
    before = gc.get_freeze_count()
    run_script(smk, job_fn)
    _drop_job_logging()
    assert gc.get_freeze_count() >= before + len(kept)
    collectable = {id(o) for g in range(3) for o in gc.get_objects(generation=g)}
    assert not any(id(n) in collectable for n in kept)  # none left in the generations a collection traverses
    from dpgrid.core.pipeline import usage_path

    assert usage_path(tmp_path / "r.log").is_file()  # the record is written before the freeze


def test_sigterm_during_a_write_removes_the_partial_file_and_exits_143(tmp_path):
    """SIGTERM (Snakemake interrupted, scancel) while a job writes: the temporary file is removed, the output is not
    created, the log says so, the exit status is 128 + 15, and the previous SIGTERM handler is back afterwards.
    With Python's default handling the process would end at once and leave the temporary file (CI, stop 34)."""
    import os
    import signal

    from dpgrid.core.io import atomic_path
    from dpgrid.core.pipeline import JobTerminated

    smk = FakeSmk(tmp_path / "r.log", tmp_path / "out" / "fig.pdf")
    seen = {}

    def job_fn(_):
        with atomic_path(tmp_path / "out" / "fig.pdf") as tmp:
            tmp.write_bytes(b"%PDF half")
            seen["tmp"] = tmp
            os.kill(os.getpid(), signal.SIGTERM)
            seen["continued"] = True  # not reached: the handler raises at the next bytecode

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(JobTerminated) as stop:
        run_script(smk, job_fn)
    _drop_job_logging()
    assert stop.value.code == 143
    assert "continued" not in seen
    assert not seen["tmp"].exists() and list((tmp_path / "out").iterdir()) == []
    assert "terminated (SIGTERM)" in (tmp_path / "r.log").read_text()
    assert signal.getsignal(signal.SIGTERM) is before


def test_job_console_shows_warnings_only_and_its_log_everything(tmp_path, capfd):
    """A job's INFO lines (dpgrid's and a library's) go to its log file only; a warning reaches the console too; the
    last log line says what each time measures."""
    smk = FakeSmk(tmp_path / "r.log", tmp_path / "o.txt")

    def job_fn(_):
        logging.getLogger("dpgrid.papers.x").info("fitted 12 models")
        logging.getLogger("pandapower.some").info("library chatter")
        logging.getLogger("dpgrid.papers.x").warning("data step differs from the paper's")

    run_script(smk, job_fn)
    err = capfd.readouterr().err
    _drop_job_logging()
    log = (tmp_path / "r.log").read_text()
    for text in ("fitted 12 models", "library chatter", "data step differs", "start"):
        assert text in log, text
    assert "data step differs" in err
    for text in ("fitted 12 models", "library chatter", "rule fake_rule: start", "finished"):
        assert text not in err, text
    last = log.strip().splitlines()[-1]
    assert "the job's work took" in last and "imports included" in last and "s of CPU" in last
