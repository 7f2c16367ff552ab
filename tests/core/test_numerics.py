"""The SIMD level of the jobs' numpy and OpenBLAS kernels (dpgrid.core.numerics)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from dpgrid.core.numerics import MARKER, OPENBLAS_CORE, apply_environment, machine_simd, pin, pinned_environment

X86 = ["SSSE3", "SSE41", "POPCNT", "SSE42", "AVX", "F16C", "FMA3", "AVX2", "AVX512F", "AVX512CD", "AVX512_SKX",
       "AVX512_ICL", "AVX512_SPR", "X86_V4"]  # fmt: skip
ARM = ["NEON", "NEON_FP16", "ASIMD", "ASIMDHP", "SVE"]


def _apply(environ: dict[str, str], values: dict[str, str | None]) -> dict[str, str]:
    """A copy of ``environ`` with ``values`` applied as pin() applies them."""
    out = dict(environ)
    apply_environment(out, values)
    return out


def _is_avx512(feature: str) -> bool:
    return feature.startswith("AVX512") or feature == "X86_V4"


machines = st.tuples(
    st.lists(st.sampled_from(X86 + ARM), unique=True),
    st.fixed_dictionaries({"AVX2": st.booleans(), "FMA3": st.booleans()}),
)
users = st.fixed_dictionaries(
    {},
    optional={
        "NPY_DISABLE_CPU_FEATURES": st.lists(st.sampled_from(X86), unique=True, max_size=3).map(" ".join),
        "OPENBLAS_CORETYPE": st.sampled_from(["Haswell", "SkylakeX", "Zen", "Prescott"]),
    },
)


@given(machines, users)
def test_avx512_targets_are_disabled_and_the_users_settings_kept(machine, user):
    dispatch, features = machine
    env = _apply(user, pinned_environment(dispatch, features, user))
    disabled = env.get("NPY_DISABLE_CPU_FEATURES", "").split()
    # every AVX-512 target of this numpy is disabled, nothing else is added to what the user disabled
    assert {f for f in dispatch if _is_avx512(f)} <= set(disabled)
    assert set(disabled) == {f for f in dispatch if _is_avx512(f)} | set(
        user.get("NPY_DISABLE_CPU_FEATURES", "").split()
    )
    # OpenBLAS: the user's core type stays; else Haswell exactly where the CPU has AVX2 and FMA3
    if "OPENBLAS_CORETYPE" in user:
        assert env["OPENBLAS_CORETYPE"] == user["OPENBLAS_CORETYPE"]
    else:
        assert env.get("OPENBLAS_CORETYPE") == (OPENBLAS_CORE if features["AVX2"] and features["FMA3"] else None)


@given(machines, machines, users)
def test_a_job_on_another_cpu_decides_again_and_pinning_twice_changes_nothing(first, second, user):
    """The submitter pins for its CPU; a job process on another node (the environment exported) pins for its own
    and ends where a process that started there would; the user's settings survive both."""
    submitted = _apply(user, pinned_environment(*first, user))
    assert _apply(submitted, pinned_environment(*first, submitted)) == submitted
    on_node = _apply(submitted, pinned_environment(*second, submitted))
    fresh = _apply(user, pinned_environment(*second, user))
    assert {k: v for k, v in on_node.items() if k != MARKER} == {k: v for k, v in fresh.items() if k != MARKER}
    assert json.loads(on_node[MARKER]) == json.loads(fresh[MARKER])


def test_a_process_started_after_pin_runs_without_avx512():
    """On this machine: numpy in a process started after pin() reports every AVX-512 feature off, and the same
    AVX2 and FMA3 as before."""
    env = dict(os.environ)
    pin(env)
    code = "import json; from numpy._core._multiarray_umath import __cpu_features__ as f; print(json.dumps(f))"
    after = json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                      check=True).stdout)  # fmt: skip
    _, before = machine_simd()
    assert machine_simd(in_process=True)[0] == machine_simd()[0]  # the Snakefile's way: the same targets
    assert not any(v for k, v in after.items() if _is_avx512(k) and k in {"AVX512F", "AVX512_SKX", "AVX512_ICL"})
    assert (after.get("AVX2"), after.get("FMA3")) == (before.get("AVX2"), before.get("FMA3"))
