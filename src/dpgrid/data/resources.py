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

Wiring (``workflow/rules/data.smk``)::

    resources:
        mem_mb=lambda wc, input: meter_data_mem_mb(input),
        runtime=lambda wc, input: meter_data_runtime_min(input),
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


def meter_data_mem_mb(input_paths) -> int:
    """``mem_mb`` of the ``meter_data`` job: 600 MB without input, else the measured fit with a margin,
    rounded up to 50 MB, never below 600 MB."""
    size = input_megabytes(input_paths)
    if size == 0:
        return SYNTHETIC_MEM_MB
    mem = MARGIN * (BASE_MB + MB_PER_MB * size)
    return max(SYNTHETIC_MEM_MB, math.ceil(mem / 50.0) * 50)


def meter_data_runtime_min(input_paths) -> int:
    """``runtime`` (minutes) of the ``meter_data`` job: 2 without input, else 2 + the measured CPU time
    times :data:`TIME_MARGIN`, rounded up."""
    size = input_megabytes(input_paths)
    if size == 0:
        return SYNTHETIC_RUNTIME_MIN
    return SYNTHETIC_RUNTIME_MIN + math.ceil(TIME_MARGIN * CPU_S_PER_MB * size / 60.0)
