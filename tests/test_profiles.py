"""Snakemake profiles (workflow/profiles/*) and the results digest tool (.ci/results_digest.py).

The local-cluster profile is exercised for real on a throwaway three-job Snakefile: each job must
run as its own detached process (own pid, own session), a failing job must be reported failed,
and cancel must stop a running job. See docs/cluster.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import REPO

PROFILES = REPO / "workflow" / "profiles"
LOCAL = PROFILES / "local-cluster"
DIGEST = REPO / ".ci" / "results_digest.py"


def load_profile(name: str) -> dict:
    return yaml.safe_load((PROFILES / name / "config.v8+.yaml").read_text())


def snakemake_options() -> set[str]:
    """Long options of this snakemake, including those of the installed executor plugins."""
    from snakemake.cli import get_argument_parser

    return {opt for action in get_argument_parser()._actions for opt in action.option_strings}


# ---- profiles parse with the expected keys ---------------------------------------------------


def test_local_cluster_profile_keys():
    prof = load_profile("local-cluster")
    assert prof["executor"] == "cluster-generic"
    for kind in ("submit", "status", "cancel"):
        script = LOCAL / prof[f"cluster-generic-{kind}-cmd"]
        # Snakemake resolves a profile value to a path in the profile dir only if it is exactly a
        # file name there; the cancel command is executed without a shell, so no arguments.
        assert script.is_file() and os.access(script, os.X_OK), f"{script} missing or not executable"
    assert prof["jobs"] <= 2, "the local cluster shares a 2-core CI machine"
    assert prof["latency-wait"] > 0 and prof["seconds-between-status-checks"] <= 2
    unknown = {k for k in prof if f"--{k}" not in snakemake_options()}
    assert not unknown, f"local-cluster profile keys snakemake does not know: {unknown}"


def test_slurm_profile_keys():
    prof = load_profile("slurm")
    assert prof["executor"] == "slurm"
    assert {"slurm_account", "slurm_partition"} <= set(prof["default-resources"])
    for value in prof["default-resources"].values():
        # resource values are Python expressions: names must stay quoted strings
        assert value[0] == value[-1] == "'", f"unquoted resource value {value!r}"
    assert prof["jobs"] >= 10 and prof["latency-wait"] >= 30 and prof["retries"] >= 1
    assert not any(k.startswith("cluster-generic") for k in prof)
    # the slurm plugin is not installed here, so only the core snakemake options are checked
    unknown = {k for k in prof if not k.startswith("slurm-") and f"--{k}" not in snakemake_options()}
    assert not unknown, f"slurm profile keys snakemake does not know: {unknown}"


# ---- the local-cluster scripts on a tiny workflow ----------------------------------------------

TINY_SNAKEFILE = """
import json, os

rule all:
    input: expand("out/{i}.json", i=range(3)), "out/fails.txt"

rule ok:
    output: "out/{i}.json"
    wildcard_constraints: i="[0-9]+"
    run:
        with open(output[0], "w") as fh:
            json.dump({"pid": os.getpid(), "sid": os.getsid(0)}, fh)

rule fails:
    output: "out/fails.txt"
    run:
        raise RuntimeError("this job fails on purpose")
"""


def job_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("SNAKEMAKE_PROFILE", None)
    return env


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    wd = tmp_path_factory.mktemp("tiny_cluster")
    (wd / "Snakefile").write_text(TINY_SNAKEFILE)
    proc = subprocess.Popen(
        [sys.executable, "-m", "snakemake", "--profile", str(LOCAL), "--keep-going"],
        cwd=wd,
        env=job_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    out, _ = proc.communicate(timeout=300)
    return wd, proc.pid, proc.returncode, out


def test_local_cluster_jobs_run_detached(tiny_run):
    wd, smk_pid, rc, out = tiny_run
    assert rc != 0, "the failing job must make snakemake fail"
    jobs = [json.loads((wd / "out" / f"{i}.json").read_text()) for i in range(3)]
    pids = [j["pid"] for j in jobs]
    sids = [j["sid"] for j in jobs]
    assert smk_pid not in pids and len(set(pids)) == 3, f"job pids {pids}, snakemake pid {smk_pid}"
    assert os.getsid(0) not in sids and len(set(sids)) == 3, f"job sessions {sids} not detached"
    logs = sorted((wd / "logs" / "cluster").glob("ok.*.log"))
    assert len(logs) == 3
    for log in logs:
        assert (log.with_suffix(".exit")).read_text().strip() == "0"
        assert "[local-cluster] job ok." in log.read_text()


def test_local_cluster_reports_failed_job(tiny_run):
    wd, _, rc, out = tiny_run
    assert rc != 0
    assert not (wd / "out" / "fails.txt").exists()
    assert "Error in rule fails" in out, out[-3000:]
    (log,) = (wd / "logs" / "cluster").glob("fails.*.log")
    assert "this job fails on purpose" in log.read_text()
    assert (log.with_suffix(".exit")).read_text().strip() == "1"
    status = subprocess.run([str(LOCAL / "status.py"), log.stem], cwd=wd, capture_output=True, text=True)
    assert status.stdout == "failed\n"


def fake_jobscript(path: Path, body: str) -> Path:
    path.write_text(f"#!/bin/sh\n# properties = {json.dumps({'rule': 'fake', 'jobid': 7})}\n{body}\n")
    return path


def script(name: str, *args: str, cwd: Path) -> str:
    return subprocess.run(
        [str(LOCAL / f"{name}.py"), *args], cwd=cwd, capture_output=True, text=True, check=True, env=job_env()
    ).stdout.strip()


def wait_status(jobid: str, cwd: Path, want: str, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    while (status := script("status", jobid, cwd=cwd)) != want and time.monotonic() < deadline:
        time.sleep(0.1)
    return status


def test_submit_status_cancel(tmp_path):
    ok = script("submit", str(fake_jobscript(tmp_path / "ok.sh", "exit 0")), cwd=tmp_path)
    bad = script("submit", str(fake_jobscript(tmp_path / "bad.sh", "exit 3")), cwd=tmp_path)
    slow = script("submit", str(fake_jobscript(tmp_path / "slow.sh", "sleep 60")), cwd=tmp_path)
    assert ok.startswith("fake.7.") and len({ok, bad, slow}) == 3
    assert wait_status(ok, tmp_path, "success") == "success"
    assert wait_status(bad, tmp_path, "failed") == "failed"
    assert (tmp_path / "logs" / "cluster" / f"{bad}.exit").read_text() == "3\n"
    assert script("status", slow, cwd=tmp_path) == "running"
    script("cancel", slow, cwd=tmp_path)
    assert wait_status(slow, tmp_path, "failed") == "failed"
    # SIGTERM reached the job script (128 + 15), not only the wrapper
    assert (tmp_path / "logs" / "cluster" / f"{slow}.exit").read_text() == "143\n"
    assert script("status", "fake.7.unknown", cwd=tmp_path) == "failed"


# ---- results_digest ------------------------------------------------------------------------------


def digest(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(DIGEST), *args], capture_output=True, text=True)


def test_results_digest_detects_a_changed_byte(tmp_path):
    a = tmp_path / "a"
    (a / "sub").mkdir(parents=True)
    (a / "t.csv").write_bytes(b"x,y\n1,2\n")
    (a / "sub" / "fig.png").write_bytes(bytes(range(256)))
    (a / ".hidden.tmp.csv").write_bytes(b"left behind")
    assert digest("write", str(a), str(tmp_path / "a.sha256")).returncode == 0
    lines = (tmp_path / "a.sha256").read_text().splitlines()
    assert [line.split("  ")[1] for line in lines] == [".hidden.tmp.csv", "sub/fig.png", "t.csv"]

    same = digest("compare", str(tmp_path / "a.sha256"), str(a))
    assert same.returncode == 0 and "3 identical" in same.stdout

    b = tmp_path / "b"
    subprocess.run(["cp", "-r", str(a), str(b)], check=True)
    png = bytearray((b / "sub" / "fig.png").read_bytes())
    png[100] ^= 1
    (b / "sub" / "fig.png").write_bytes(bytes(png))
    (b / "new.csv").write_text("z\n")
    (b / "t.csv").unlink()
    res = digest("compare", str(tmp_path / "a.sha256"), str(b))
    assert res.returncode == 1
    assert "differing: sub/fig.png" in res.stdout
    assert "added (only in B): new.csv" in res.stdout
    assert "missing (only in A): t.csv" in res.stdout
    assert "1 identical, 1 differing, 1 added, 1 missing" in res.stdout


def test_results_digest_errors(tmp_path):
    assert digest("compare", str(tmp_path / "nope"), str(tmp_path)).returncode == 2
    (tmp_path / "bad.sha256").write_text("not a digest line\n")
    res = digest("compare", str(tmp_path / "bad.sha256"), str(tmp_path))
    assert res.returncode == 2 and "bad.sha256:1" in res.stderr
    (tmp_path / "empty").mkdir()
    assert digest("compare", str(tmp_path / "empty"), str(tmp_path / "empty")).returncode == 1
