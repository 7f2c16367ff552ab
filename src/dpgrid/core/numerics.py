"""The SIMD level of numpy's and OpenBLAS' kernels, pinned to AVX2 on x86-64 machines that have more.

numpy picks its ufunc kernels (exp, log, sums, sorts) at import from the CPU's features, and OpenBLAS its BLAS
kernels at load. An AVX-512 kernel rounds differently from the AVX2 one: on a machine with AVX-512 the full
configuration's stand-in data, fits and clusterings drift from those of an AVX2 machine, and claim verdicts with
them (measured: a calibrated stand-in property off its target, and 7 of 145 verdicts off the committed claims
reference). To take this source out, every job runs with

* ``NPY_DISABLE_CPU_FEATURES``: numpy's AVX-512 dispatch targets (those of the installed numpy; the
  AVX2 and FMA3 kernels stay), added to any the user disables;
* ``OPENBLAS_CORETYPE=Haswell`` where the CPU has AVX2 and FMA3 (the kernels OpenBLAS picks on AVX2 machines),
  unless the user set another core type.

Machines without AVX2, and other architectures, keep their kernels: their numbers may differ in the last bits
and, through the data draws and optimisers, beyond. The pin is not the whole story: on an AVX-512 machine it brings
a calibrated stand-in property back to its target, but a few verdicts of the full configuration still differ from
the committed reference there, from a source not yet found; the reference lists them with both verdicts
(:mod:`dpgrid.core.claims_reference`, README.md "Configuration").

:func:`pin` sets the variables in ``os.environ`` so that the jobs' processes inherit them; the Snakefile calls it
before any job (with the numpy of its own process), and tests/conftest.py before numpy loads (from a fresh
interpreter). It records what it set in ``DPGRID_NUMERICS`` so that a job process on another node (SLURM exports
the submitter's environment) decides again for its own CPU.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, MutableMapping, Sequence

#: OpenBLAS' kernels on AVX2 + FMA3 machines
OPENBLAS_CORE = "Haswell"
#: the environment variable that records what :func:`pin` set
MARKER = "DPGRID_NUMERICS"


def _avx512(feature: str) -> bool:
    return feature.startswith("AVX512") or feature == "X86_V4"


def pinned_environment(
    dispatch: Sequence[str], features: Mapping[str, bool], environ: Mapping[str, str]
) -> dict[str, str | None]:
    """The variables to set (None: to remove) given numpy's dispatch targets ``dispatch`` and the CPU's ``features``
    (numpy's ``__cpu_dispatch__`` and ``__cpu_features__``) and the current ``environ``. A value that :func:`pin`
    did not set (no record of it in ``DPGRID_NUMERICS``) is the user's and is kept."""
    previous = json.loads(environ.get(MARKER) or "{}")
    out: dict[str, str | None] = {}
    disabled = environ.get("NPY_DISABLE_CPU_FEATURES", "").replace(",", " ").split()
    user = [f for f in disabled if f not in previous.get("npy_added", [])]
    added = [f for f in dispatch if _avx512(f) and f not in user]
    out["NPY_DISABLE_CPU_FEATURES"] = " ".join(user + added) or None
    core = environ.get("OPENBLAS_CORETYPE")
    if core is None or core == previous.get("openblas"):
        out["OPENBLAS_CORETYPE"] = OPENBLAS_CORE if features.get("AVX2") and features.get("FMA3") else None
        ours = out["OPENBLAS_CORETYPE"]
    else:
        ours = None
    out[MARKER] = json.dumps({"npy_added": added, "openblas": ours}, separators=(",", ":"))
    return out


def machine_simd(in_process: bool = False) -> tuple[list[str], dict[str, bool]]:
    """numpy's dispatch targets and this CPU's features. ``in_process``: from the numpy of this process (imported
    if it is not yet; its features then lack any it was started with disabled, never AVX2 or FMA3 unless the user
    disabled them); else from a fresh interpreter, so that numpy does not load in the caller before :func:`pin`
    sets the variables (tests/conftest.py)."""
    if in_process:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

        return list(__cpu_dispatch__), dict(__cpu_features__)
    code = (
        "import json\n"
        "from numpy._core._multiarray_umath import __cpu_dispatch__ as d, __cpu_features__ as f\n"
        "print(json.dumps([list(d), f]))"
    )
    env = {k: v for k, v in os.environ.items() if k != "NPY_DISABLE_CPU_FEATURES"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    dispatch, features = json.loads(done.stdout)
    return dispatch, features


def pin(environ: MutableMapping[str, str] | None = None, in_process: bool = False) -> dict[str, str | None]:
    """Set the variables of :func:`pinned_environment` for this machine in ``environ`` (default ``os.environ``) and
    return them. Processes started afterwards run the pinned kernels; a numpy or OpenBLAS loaded already keeps its
    own. ``in_process``: see :func:`machine_simd` (the Snakefile's process, whose jobs are other processes)."""
    environ = os.environ if environ is None else environ
    values = pinned_environment(*machine_simd(in_process), environ)
    apply_environment(environ, values)
    return values


def apply_environment(environ: MutableMapping[str, str], values: Mapping[str, str | None]) -> None:
    """Set each of ``values`` in ``environ``; a None removes the variable."""
    for name, value in values.items():
        if value is None:
            environ.pop(name, None)
        else:
            environ[name] = value
