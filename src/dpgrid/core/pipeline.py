"""Glue for Snakemake scripts: the job contract, logging to the rule's log file, progress messages.

Scripts (``workflow/rules/../scripts``, ``workflow/papers/<paper>/scripts``) stay thin::

    from dpgrid.papers.<paper> import figures
    from dpgrid.core.pipeline import run_script

    run_script(snakemake, figures.fig1_job)   # noqa: F821

**The job contract.** :func:`run_script` hands the job function a :class:`Job`: the rule's
``input``, ``output``, ``params``, ``wildcards``, ``log``, ``threads`` and ``resources``, and
nothing else. In particular there is no ``config``: every config value a job uses reaches it
through its rule's ``params`` (the slice of the config it needs, plus ``seed`` where it draws
random numbers), so Snakemake's params rerun trigger reruns exactly the jobs that use a changed
key. The rule's code hash (``params.code``, :mod:`dpgrid.core.provenance`) does the same for code.

Failures: the full traceback goes to the rule's log file; stderr gets one line with the message
and the log's path, and the script exits with status 1 (no second traceback from Snakemake).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import signal
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

LOG = logging.getLogger("dpgrid")


class Job:
    """What a job function sees: its rule's files, params and wildcards (no config)."""

    __slots__ = ("rule", "input", "output", "params", "wildcards", "log", "threads", "resources")

    def __init__(
        self,
        *,
        rule: str,
        input: Any,
        output: Any,
        params: Any,
        wildcards: Any,
        log: Any = (),
        threads: int = 1,
        resources: Any = None,
    ) -> None:
        self.rule, self.input, self.output, self.params = rule, input, output, params
        self.wildcards, self.log, self.threads, self.resources = wildcards, log, threads, resources

    @classmethod
    def from_snakemake(cls, smk: Any) -> Job:
        return cls(
            rule=smk.rule,
            input=smk.input,
            output=smk.output,
            params=smk.params,
            wildcards=smk.wildcards,
            log=smk.log,
            threads=smk.threads,
            resources=smk.resources,
        )

    def __getattr__(self, name: str) -> Any:  # only reached for attributes a Job does not have
        if name == "config":
            raise AttributeError(
                f"rule {self.rule}: a job has no config; pass the values it needs as the "
                "rule's params (docs/DEVELOPING.md, 'The job contract')"
            )
        raise AttributeError(f"rule {self.rule}: a job has no attribute {name!r}")


#: the level of what a job prints to the console (Snakemake's stderr); its log file gets everything from INFO up
CONSOLE_LEVEL = logging.WARNING


def setup_logging(log_path: str | None) -> None:
    """The job's log file gets INFO and up (dpgrid's and the libraries' progress); the console only warnings and
    errors, which need the user: a run's console shows Snakemake's progress, not every job's chatter."""
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(CONSOLE_LEVEL if log_path else logging.INFO)  # no log file: the console is the only record
    handlers: list[logging.Handler] = [console]
    if log_path:
        handlers.append(logging.FileHandler(log_path, mode="w", encoding="utf-8"))
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s: %(message)s", handlers=handlers, force=True
    )
    logging.captureWarnings(True)
    warnings.simplefilter("default")
    logging.getLogger("fontTools").setLevel(logging.WARNING)  # PDF font subsetting chatter
    logging.getLogger("matplotlib").setLevel(logging.WARNING)


class OutputDirError(RuntimeError):
    """An output folder of the pipeline cannot be written."""


class InterpreterPathError(RuntimeError):
    """The Python interpreter's path cannot be run by Snakemake's script jobs."""


def check_interpreter_path(executable: str) -> None:
    """Stop before any job when the interpreter's path holds a blank (a space, a tab, ...): Snakemake starts each
    ``script:`` job as ``<interpreter> <script>`` with the interpreter unquoted, so every such job would fail
    with a shell error (a repository under ``My Documents`` with the README's in-tree ``.venv``)."""
    if any(c.isspace() for c in executable):
        raise InterpreterPathError(
            f"the Python interpreter {executable!r} has a blank in its path: Snakemake runs every script job "
            f"with it unquoted, so each would fail. Make the venv at a path without blanks (e.g. "
            f"python3 -m venv ~/venvs/dpgrid && . ~/venvs/dpgrid/bin/activate && pip install -e .), or move the "
            f"repository to such a path"
        )


class SnakemakeRecordError(RuntimeError):
    """A file of Snakemake's records (``.snakemake/metadata``) that Snakemake cannot read."""


def check_snakemake_records(folder: str | Path = ".snakemake/metadata") -> None:
    """Stop with a message naming the file, the output it records and what to do when one of Snakemake's records of
    the outputs (one JSON file per output, named by the output's path in URL-safe base64) is not UTF-8 JSON (a
    disk error, an editor): Snakemake reads them while planning and stops with a raw traceback."""
    import base64
    import binascii
    import json

    folder = Path(folder)
    if not folder.is_dir():
        return
    bad = []
    for f in sorted(folder.iterdir()):
        if not f.is_file():
            continue
        try:
            json.loads(f.read_bytes().decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            try:
                output = base64.urlsafe_b64decode(f.name).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError, ValueError):
                output = "an output"
            bad.append(f"{f}: Snakemake's record of {output} is not UTF-8 JSON ({exc})")
    if bad:
        shown = "\n  ".join(bad[:5]) + (f"\n  ... and {len(bad) - 5} more" if len(bad) > 5 else "")
        raise SnakemakeRecordError(
            f"unreadable Snakemake records:\n  {shown}\nDelete these files (rm '<file>'): Snakemake then has no "
            f"record of those outputs, and `snakemake -R <rule>` (or deleting the outputs) makes them again"
        )


def check_writable(dirs) -> None:
    """Stop before any job runs when an output folder cannot be written (read-only, not a folder, ...).

    Each folder (or, if it does not exist yet, the folder that would hold it) gets a probe file, created
    and removed: permissions, read-only mounts and quotas all show up, unlike ``os.access``.
    """
    import tempfile

    for d in map(Path, dirs):
        target = d if d.exists() else d.parent if str(d.parent) not in ("", ".") else Path(".")
        try:
            if target.exists() and not target.is_dir():
                raise NotADirectoryError(f"{target} is not a folder")
            with tempfile.NamedTemporaryFile(dir=target, prefix=".dpgrid-write-probe-"):
                pass
        except OSError as exc:
            raise OutputDirError(
                f"cannot write the pipeline's outputs to {d}/ ({exc}); nothing was run: "
                "make it a writable folder (or run from a writable copy of the workflow)"
            ) from None


class StalePackageError(RuntimeError):
    """The script imported a dpgrid other than the workflow checkout's ``src/dpgrid``."""


def check_package_location(scriptdir: str | os.PathLike) -> None:
    """Refuse to run scripts with a dpgrid copy other than the checkout's ``src/dpgrid``.

    Snakemake's code hashes (:mod:`dpgrid.core.provenance`) are computed from the checkout, so a
    stale installed copy would make results disagree with their provenance.
    """
    import dpgrid

    here = Path(dpgrid.__file__).resolve().parent
    for parent in Path(scriptdir).resolve().parents:
        # the checkout's root: its Snakefile beside workflow/ (workflow/Snakefile is the workflow's main file)
        if (parent / "Snakefile").is_file() and (parent / "workflow").is_dir():
            expected = (parent / "src" / "dpgrid").resolve()
            if here != expected:
                raise StalePackageError(
                    f"dpgrid is imported from {here}, not from this workflow's {expected}; "
                    f"install the checkout with `pip install -e .`"
                )
            return


class JobTerminated(SystemExit):
    """SIGTERM reached a running job (Snakemake interrupted, ``scancel``, a cluster's time limit).

    Python's default for SIGTERM ends the process at once, without unwinding, so a job stopped while writing left its
    temporary file (``dpgrid.core.io.atomic_path``) beside its outputs, e.g. a ``.fig2.*.tmp.pdf`` in results/
    after a SLURM run is interrupted and resumed. :func:`run_script` turns SIGTERM into this exception
    instead: the writers' cleanup runs, and the process exits with the conventional status 128 + 15.
    """


def _terminate(signum, _frame):
    raise JobTerminated(128 + signum)


def run_script(smk: Any, func: Callable[[Job], Any]) -> Any:
    """Run ``func(Job)`` with logging to the rule's log; on failure log the traceback there and exit 1; on SIGTERM
    remove the partial outputs and exit 143 (:class:`JobTerminated`)."""
    log_path = smk.log[0] if len(smk.log) else None
    setup_logging(log_path)
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        check_package_location(smk.scriptdir)
        job = Job.from_snakemake(smk)
        LOG.info("rule %s: start (outputs: %s)", smk.rule, ", ".join(map(str, smk.output)))
        t0 = time.perf_counter()
        gc.freeze()  # the imports' objects: the job's own collections need not traverse them
        result = func(job)
    except JobTerminated:
        LOG.error("rule %s: terminated (SIGTERM); files it was writing were removed", smk.rule)
        raise
    except Exception as exc:
        detail = traceback.format_exc()
        for h in logging.getLogger().handlers:
            if isinstance(h, logging.FileHandler):
                h.stream.write(detail)
                h.flush()
        where = f" (traceback in {log_path})" if log_path else ""
        from dpgrid.core.io import damaged_input_message

        damaged = damaged_input_message(smk.input)  # a truncated .npz input: name it and how to remake it
        if damaged:
            LOG.error("%s", damaged.strip())
        print(f"rule {smk.rule} failed: {type(exc).__name__}: {exc}{where}{damaged}", file=sys.stderr, flush=True)
        sys.exit(1)
    finally:
        signal.signal(signal.SIGTERM, previous)
    usage = job_usage()
    LOG.info(
        "rule %s: finished; the job's work took %.2f s; the process, imports included, used %.2f s of CPU, "
        "peak memory %.0f MB",
        smk.rule,
        time.perf_counter() - t0,
        usage["cpu_s"],
        usage["max_rss_mb"],
    )
    if log_path:
        from dpgrid.core.io import write_json

        write_json(usage, usage_path(log_path))
    _skip_final_collections()
    return result


def _skip_final_collections() -> None:
    """Move every object alive now into the garbage collector's permanent generation (``gc.freeze``).

    A job is one process that ends when its script returns, and the interpreter's shutdown then runs full
    collections over everything the imports and the job made: about 0.3 s CPU for a process with pandas,
    scipy and matplotlib loaded, 0.24 s per job on average in the quick configuration (26.6 s over its 113 job
    processes, measured outside the jobs' own records; benchmarks/critical_path.md). Frozen objects are not
    traversed. Every output is written and closed before this (atomic writes), so nothing waits for a collection;
    the memory is returned to the system when the process exits.
    """
    gc.freeze()


#: Suffix of the file beside a job's log that records the job's own resource usage (:func:`job_usage`).
USAGE_SUFFIX = ".usage.json"


def usage_path(log_path: str | os.PathLike) -> Path:
    """Where :func:`run_script` records the usage of the job whose log is ``log_path``."""
    return Path(f"{log_path}{USAGE_SUFFIX}")


def job_usage() -> dict[str, float]:
    """CPU seconds and peak resident memory (MB as Snakemake's benchmark counts them: 2^20 bytes) of this process
    and the children it waited for (getrusage).

    Snakemake's benchmark samples a job every 0.5 s for its first 30 samples, then every 30 s, so a job
    longer than about 15 s can end between samples: its ``cpu_time`` misses the CPU used after the last
    sample and its ``max_rss`` a later peak. The kernel's counters miss nothing; :mod:`dpgrid.core.costs` reports
    the larger of the two. ``max_rss_mb`` is the larger peak of this process and of its largest waited-for
    child (not their sum).
    """
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    per_mb = 1024.0 if sys.platform != "darwin" else 1024.0 * 1024.0  # ru_maxrss: KiB on Linux, bytes on macOS
    return {
        "cpu_s": me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime,
        "max_rss_mb": max(me.ru_maxrss, kids.ru_maxrss) / per_mb,
    }


class Progress:
    """Coarse progress messages for long loops (every ``every`` seconds at most)."""

    def __init__(self, total: int, label: str, every: float = 5.0) -> None:
        self.total, self.label, self.every = total, label, every
        self.t0 = self.last = time.perf_counter()
        self.n = 0

    def step(self, n: int = 1) -> None:
        self.n += n
        now = time.perf_counter()
        if now - self.last >= self.every or self.n == self.total:
            self.last = now
            LOG.info("%s: %d/%d (%.0f s)", self.label, self.n, self.total, now - self.t0)


@contextlib.contextmanager
def timed(label: str):
    t0 = time.perf_counter()
    yield
    LOG.info("%s took %.2f s", label, time.perf_counter() - t0)
