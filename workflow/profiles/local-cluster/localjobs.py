"""A minimal batch system on one machine, for Snakemake's cluster-generic executor (stdlib only).

submit.py, status.py and cancel.py in this directory are thin entry points to the functions
below. Every job runs as its own detached process: a new session (process group leader), no
terminal, stdin from /dev/null, stdout/stderr to a per-job log, started from the directory
Snakemake runs in. The job id is ``<rule>.<snakemake jobid>.<random>``; its files are

    logs/cluster/<id>.log    stdout+stderr of the job (a header line names pid, session, group)
    logs/cluster/<id>.pid    "<pid> <start time>" of the job's wrapper process (written at submit)
    logs/cluster/<id>.exit   the job script's exit code (written atomically when it ends)

The wrapper (``localjobs.py run``) runs the job script with /bin/sh, waits for it and records
its exit code (128 + signal number when killed by a signal). Status: ``success`` / ``failed``
from the exit file; ``running`` while the wrapper process lives; ``failed`` when the wrapper died
without recording an exit code (killed with SIGKILL, machine rebooted). Cancel sends SIGTERM to
the job's whole process group (the wrapper forwards it if only the wrapper is signalled).

The environment of a job is the environment of the submitting Snakemake (interpreter, venv,
PYTHONPATH, DPGRID_MIRROR, ...), as on a batch system that exports the submitter's environment.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: Per-job files, relative to the directory Snakemake runs in (the repository root).
LOGDIR = Path("logs") / "cluster"


class LocalJobError(Exception):
    pass


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


def job_properties(jobscript: Path) -> dict:
    """The ``# properties = {...}`` JSON line Snakemake writes into every job script."""
    with open(jobscript, encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("# properties = "):
                return json.loads(line[len("# properties = ") :])
    raise LocalJobError(f"{jobscript}: no '# properties = ' line; is this a Snakemake job script?")


def _start_time(pid: int) -> str | None:
    """Start time of ``pid`` in clock ticks since boot (Linux /proc), None elsewhere or if gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2 :].split()[19]


def _alive(pid: int, start: str) -> bool:
    """Does the process that was ``pid`` (started at ``start``) still run (zombies count as ended)?"""
    if Path("/proc/self/stat").exists():
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        fields = stat[stat.rindex(")") + 2 :].split()
        return fields[0] not in ("Z", "X") and (start == "-" or fields[19] == start)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _safe_id(jobid: str) -> str:
    if not jobid or "/" in jobid or jobid.startswith("."):
        raise LocalJobError(f"invalid job id {jobid!r}")
    return jobid


# ---- submit ---------------------------------------------------------------------------------


def submit(jobscript: str) -> str:
    """Start ``jobscript`` detached; return the job id."""
    script = Path(jobscript).resolve()
    props = job_properties(script)
    label = props.get("rule") or props.get("groupid") or "job"
    LOGDIR.mkdir(parents=True, exist_ok=True)
    fd, log = tempfile.mkstemp(prefix=f"{label}.{props.get('jobid', 'x')}.", suffix=".log", dir=LOGDIR)
    jobid = Path(log).name[: -len(".log")]
    with os.fdopen(fd, "wb") as logfh:
        proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "run", jobid, str(script)],
            stdin=subprocess.DEVNULL,
            stdout=logfh,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
        )
    # The wrapper outlives this process on purpose (it is re-parented); nobody waits for it here.
    _atomic_write(LOGDIR / f"{jobid}.pid", f"{proc.pid} {_start_time(proc.pid) or '-'}\n")
    return jobid


# ---- the detached wrapper --------------------------------------------------------------------


def run(jobid: str, jobscript: str) -> int:
    """Run the job script, forward SIGTERM/SIGINT to it, record its exit code; return that code."""
    jobid = _safe_id(jobid)
    t0 = time.time()
    print(
        f"[local-cluster] job {jobid}: pid={os.getpid()} sid={os.getsid(0)} pgid={os.getpgid(0)} "
        f"ppid={os.getppid()} host={socket.gethostname()} "
        f"start={_dt.datetime.now().isoformat(timespec='seconds')} script={jobscript}",
        flush=True,
    )
    children: list[subprocess.Popen] = []
    pending: list[int] = []

    def forward(signum, _frame):
        if not children:
            pending.append(signum)  # arrived before the job script started: deliver it then
            return
        try:
            children[0].send_signal(signum)
        except ProcessLookupError:
            pass

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    children.append(subprocess.Popen(["/bin/sh", jobscript], stdin=subprocess.DEVNULL))
    for signum in pending:
        children[0].send_signal(signum)
    rc = children[0].wait()
    code = rc if rc >= 0 else 128 - rc
    _atomic_write(LOGDIR / f"{jobid}.exit", f"{code}\n")
    print(f"[local-cluster] job {jobid}: exit code {code} after {time.time() - t0:.1f} s", flush=True)
    return code


# ---- status ----------------------------------------------------------------------------------


def status(jobid: str) -> str:
    """``running``, ``success`` or ``failed``."""
    jobid = _safe_id(jobid)
    exit_file = LOGDIR / f"{jobid}.exit"

    def from_exit_file() -> str | None:
        try:
            text = exit_file.read_text()
        except FileNotFoundError:
            return None
        return "success" if int(text) == 0 else "failed"

    done = from_exit_file()
    if done:
        return done
    try:
        pid_text, start = (LOGDIR / f"{jobid}.pid").read_text().split()
    except FileNotFoundError:
        print(f"status: unknown job {jobid} (no {LOGDIR}/{jobid}.pid under {os.getcwd()})", file=sys.stderr)
        return "failed"
    if _alive(int(pid_text), start):
        return "running"
    # The wrapper writes the exit file before it ends: look again, then it died without one.
    done = from_exit_file()
    if done:
        return done
    print(f"status: job {jobid} (pid {pid_text}) ended without recording an exit code", file=sys.stderr)
    return "failed"


# ---- cancel ----------------------------------------------------------------------------------


def cancel(jobids: list[str]) -> int:
    """SIGTERM to the process group of each running job; returns the number signalled."""
    n = 0
    for jobid in map(_safe_id, jobids):
        try:
            pid_text, start = (LOGDIR / f"{jobid}.pid").read_text().split()
        except FileNotFoundError:
            print(f"cancel: unknown job {jobid}", file=sys.stderr)
            continue
        pid = int(pid_text)
        if not _alive(pid, start):
            continue
        try:
            os.killpg(pid, signal.SIGTERM)  # the wrapper leads its own session and group
            n += 1
        except ProcessLookupError:
            pass
    return n


def main(argv: list[str]) -> int:
    try:
        if len(argv) == 2 and argv[0] == "submit":
            print(submit(argv[1]))
            return 0
        if len(argv) == 3 and argv[0] == "run":
            return run(argv[1], argv[2])
        if len(argv) == 2 and argv[0] == "status":
            print(status(argv[1]))
            return 0
        if len(argv) >= 2 and argv[0] == "cancel":
            cancel(argv[1:])
            return 0
    except LocalJobError as exc:
        print(f"local-cluster: {exc}", file=sys.stderr)
        return 2
    print(
        "usage: localjobs.py submit JOBSCRIPT | run JOBID JOBSCRIPT | status JOBID | cancel JOBID...", file=sys.stderr
    )
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
