"""Resources of the ``meter_data`` rule from the size of its input files (Snakemake resource callables).

The rule reads a bring-your-own CSV pair, or the downloaded UCI file, or nothing (the synthetic
source). Its peak memory and time grow with the bytes it reads; both were measured with
``benchmarks/bench_data.py --csv DIR`` (job = ``load_experiment_data`` + ``MeterData.save``, one fresh
process per file; see docs/data.md "Your own meter data"):

=====================================  ==========  ===========  ==========
readings file (meters x 70 d @15 min)  size        peak RSS     CPU time
=====================================  ==========  ===========  ==========
1                                      0.2 MB      77 MB        0.3 s
250                                    55 MB       232 MB       1.7 s
1000                                   222 MB      734 MB       6.8 s
=====================================  ==========  ===========  ==========

The fit ``peak ~ BASE_MB + MB_PER_MB x size`` is scaled by :data:`MARGIN` (other pandas versions, other
row layouts, e.g. time-major files that must be sorted); the time by a factor of :data:`TIME_MARGIN`
(a busy cluster node). The UCI sources read their files differently (the whole UCI household file as
text; the ELD file in chunks up to the window's end) and were not measured at full size here: they keep
a floor of the synthetic values and the same per-byte slope, which is generous for ELD (memory bounded by
its chunk and the window) and of the order of the household loader's (three text columns per line).

A source that reads no file (synthetic, the stand-ins) declares the fit at the size of the CSV of the readings it
makes (:func:`experiment_readings`, :data:`CSV_BYTES_PER_READING`), and an experiment whose declaration exceeds the
machine's memory (or ``$DPGRID_MEMORY_MB``) is refused before any job (:func:`oversized_experiments`, called by
``check_config`` in workflow/rules/common.smk), naming its size keys.

Wiring (``workflow/rules/data.smk``)::

    resources:
        mem_mb=lambda wc, input: meter_data_mem_mb(input, experiment_spec(wc)),
        runtime=lambda wc, input: meter_data_runtime_min(input),

and in the SLURM profile's ``set-resources`` (an expression of ``input`` and ``wildcards`` only),
``meter_data_mem_mb(list(input), wildcards.experiment)``: the experiment's entry comes from the config that
data.smk registered (:func:`register_experiments`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable

#: Declared values of the synthetic source (no input file), as before: 600 MB, 2 minutes.
SYNTHETIC_MEM_MB = 600
SYNTHETIC_RUNTIME_MIN = 2
#: Measurements of the job (input MB -> peak RSS MB, CPU seconds), benchmarks/bench_data.py --csv.
MEASURED_PEAK_MB = {0.2: 77.0, 55.4: 232.0, 221.8: 734.0}
MEASURED_CPU_S = {0.2: 0.32, 55.4: 1.72, 221.8: 6.79}
#: Fit of the measured peak RSS (MB) against the input size (MB): intercept and slope (through the
#: smallest and the largest measurement, rounded up).
BASE_MB = 80.0
MB_PER_MB = 3.0
#: Measured CPU seconds per input MB (the 221 MB file: 6.8 s).
CPU_S_PER_MB = 0.031
MARGIN = 1.5
TIME_MARGIN = 10.0


def input_megabytes(input_paths: Iterable[str | os.PathLike] | str | os.PathLike | None) -> float:
    """Total size of the files (MB, 1e6 bytes); files that do not exist yet (a dry run) count 0."""
    if input_paths is None:
        return 0.0
    if isinstance(input_paths, (str, os.PathLike)):
        input_paths = [input_paths]
    total = 0
    for p in input_paths:
        try:
            total += os.path.getsize(p)
        except OSError:
            continue
    return total / 1e6


#: Bytes of the canonical readings CSV per reading (``R0001,2019-01-07 00:00:00,0.123456``): 109.3 MB for the
#: 2,688,000 readings of 1000 synthetic meters x 28 days at 15 min, whose job peaked at 464 MB (the fit: 615).
CSV_BYTES_PER_READING = 41.0
#: Keys of a ``data.experiments`` entry that count its meters (a source without any: one meter).
METER_COUNT_KEYS = ("n_residential", "n_commercial", "n_meters", "pseudo_meters")
#: Environment variable that sets the memory (MB) a job may declare; default: this machine's physical memory.
MEMORY_LIMIT_ENV = "DPGRID_MEMORY_MB"


def experiment_readings(spec) -> int:
    """Readings an experiment's meter data hold: meters x intervals of the window (0 for a csv source, whose
    size is its file's; None: 0)."""
    if not spec or spec.get("source") == "csv":
        return 0
    meters = sum(int(spec.get(k) or 0) for k in METER_COUNT_KEYS) or 1
    return meters * int(spec["days"]) * (1440 // int(spec["step_minutes"]))


def _fit_mb(size_mb: float) -> int:
    mem = MARGIN * (BASE_MB + MB_PER_MB * size_mb)
    return max(SYNTHETIC_MEM_MB, math.ceil(mem / 50.0) * 50)


#: The ``data.experiments`` entries of the loaded workflow (workflow/rules/data.smk), for a resource expression that
#: can name only the job's wildcards (the SLURM profile's ``set-resources``: Snakemake evaluates it without the config).
_EXPERIMENTS: dict = {}


def register_experiments(experiments) -> None:
    """Keep the config's ``data.experiments`` for :func:`meter_data_mem_mb` called with an experiment's name."""
    _EXPERIMENTS.clear()
    _EXPERIMENTS.update(experiments or {})


def meter_data_mem_mb(input_paths, spec=None) -> int:
    """``mem_mb`` of the ``meter_data`` job: the measured fit (with a margin, rounded up to 50 MB, never below
    600 MB) of the input files' size, or, for a source that reads no file, of the size of the readings it
    makes (``spec``, the ``data.experiments`` entry, or its name among the registered ones:
    :func:`experiment_readings`); 600 MB when neither is known."""
    if isinstance(spec, str):
        spec = _EXPERIMENTS.get(spec)
    size = input_megabytes(input_paths)
    if size == 0:
        size = experiment_readings(spec) * CSV_BYTES_PER_READING / 1e6
    if size == 0:
        return SYNTHETIC_MEM_MB
    return _fit_mb(size)


def memory_limit_mb() -> int:
    """The memory (MB) a job may declare: ``$DPGRID_MEMORY_MB`` if set, else this machine's physical memory."""
    env = os.environ.get(MEMORY_LIMIT_ENV, "").strip()
    if env:
        return int(env)
    return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 10**6)


def oversized_experiments(experiments, limit_mb: int | None = None) -> list[str]:
    """One problem per ``data.experiments`` entry whose meter data would need more memory than ``limit_mb``
    (default :func:`memory_limit_mb`), naming the keys that set its size: refused before any job."""
    limit_mb = memory_limit_mb() if limit_mb is None else limit_mb
    problems = []
    for name, spec in (experiments or {}).items():
        need = meter_data_mem_mb(None, spec)
        if need <= limit_mb:
            continue
        counts = [k for k in METER_COUNT_KEYS if spec.get(k)]
        keys = ", ".join(f"data.experiments.{name}.{k} = {spec[k]}" for k in counts) or "1 meter"
        problems.append(
            f"{keys} with days = {spec['days']} at step_minutes = {spec['step_minutes']}: "
            f"{experiment_readings(spec):,} readings need about {need:,} MB in the meter_data job, more than the "
            f"{limit_mb:,} MB {'of $' + MEMORY_LIMIT_ENV if os.environ.get(MEMORY_LIMIT_ENV, '').strip() else 'of this machine'} "
            f"(${MEMORY_LIMIT_ENV} sets another limit, e.g. a cluster node's)"
        )
    return problems


def meter_data_runtime_min(input_paths) -> int:
    """``runtime`` (minutes) of the ``meter_data`` job: 2 without input, else 2 + the measured CPU time
    times :data:`TIME_MARGIN`, rounded up."""
    size = input_megabytes(input_paths)
    if size == 0:
        return SYNTHETIC_RUNTIME_MIN
    return SYNTHETIC_RUNTIME_MIN + math.ceil(TIME_MARGIN * CPU_S_PER_MB * size / 60.0)
