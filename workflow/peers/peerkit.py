"""Shared logic of the peer scripts (``workflow/peers/<peer>_run.py``): numpy and the standard library only.

The peer scripts run in each peer's own pinned environment (``resources/peers/<peer>/venv`` or the conda
env ``workflow/envs/<peer>.yaml``), never in dpgrid's, so they cannot import dpgrid; they exchange plain
files with dpgrid's rules: they read dpgrid's ``results/dpkmeans/clustering.npz`` and write one ``.npz``
per run (arrays only) and a run-time CSV. Everything here is testable without the peer packages
(tests/papers/dpkmeans/peers/test_peers.py, with fake peer objects):

* file exchange: :func:`load_clustering`, :func:`save_npz`, :func:`write_runtime`, :func:`run_seeds`;
* loading modules of a package by path without running its ``__init__`` (CEDSKMeans' ``__init__`` imports
  its ray-based map-reduce module): :func:`load_modules`;
* budget bookkeeping of a peer's mechanisms (diffprivlib): :class:`BudgetRecorder`,
  :func:`recording_mechanism`, :func:`calling_first`, :func:`patched`;
* the noise draw of CEDSKMeans: :class:`NoiseTap` and :func:`instrument_cedskmeans` (records the gamma_c it
  calibrates, the leave-one-out shift matrix it uses and the covariance it draws from; draws from a seeded
  ``numpy.random.RandomState`` instead of numpy's global one, same algorithm).

Determinism: every draw comes from a seed the rule passes (derived from dpgrid's root seed with
``dpgrid.core.seeds.job_seed_sequence``), never from a global random state.
"""

from __future__ import annotations

import contextlib
import csv
import importlib.util
import os
import sys
import tempfile
import types
from pathlib import Path

import numpy as np

# ------------------------------------------------------------------------------------------------
# file exchange


def load_clustering(path: str | os.PathLike) -> dict:
    """The Fig. 9 clustering from dpgrid's ``clustering.npz``: X (profiles without outliers), centroids, labels, K.

    Raises ValueError naming the file and the field when a field is missing or inconsistent.
    """
    path = Path(path)
    with np.load(path) as z:
        missing = [k for k in ("X_all", "is_outlier", "centroids", "labels", "k") if k not in z.files]
        if missing:
            raise ValueError(f"{path}: missing field(s) {missing} (expected dpgrid's results/dpkmeans/clustering.npz)")
        X = np.asarray(z["X_all"], dtype=float)[~np.asarray(z["is_outlier"], dtype=bool)]
        C = np.asarray(z["centroids"], dtype=float)
        labels = np.asarray(z["labels"], dtype=int)
        K = int(z["k"])
    if C.shape != (K, X.shape[1]):
        raise ValueError(f"{path}: field centroids has shape {C.shape}, expected ({K}, {X.shape[1]})")
    if labels.shape != (len(X),) or labels.min() < 0 or labels.max() >= K:
        raise ValueError(
            f"{path}: field labels must hold {len(X)} cluster indices in [0, {K}), got shape "
            f"{labels.shape}, range [{labels.min()}, {labels.max()}]"
        )
    return {"X": X, "centroids": C, "labels": labels, "k": K}


@contextlib.contextmanager
def _atomic(path: str | os.PathLike):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def save_npz(path: str | os.PathLike, **arrays) -> None:
    """Write arrays to an uncompressed ``.npz`` atomically (temp file + rename), as ``dpgrid.core.io.save_npz`` does."""
    with _atomic(path) as tmp, open(tmp, "wb") as fh:
        np.savez(fh, **arrays)


RUNTIME_COLUMNS = ["method", "eps_c", "run", "seconds"]


def write_runtime(path: str | os.PathLike, method: str, eps: float, seconds) -> None:
    """The wall time of every run of a peer at one eps_c (CSV; timings vary, so it goes to benchmarks/)."""
    with _atomic(path) as tmp, open(tmp, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(RUNTIME_COLUMNS)
        for r, s in enumerate(seconds):
            w.writerow([method, repr(float(eps)), r, f"{float(s):.6f}"])


def run_seeds(seed: int, n: int) -> list[int]:
    """``n`` seeds for the runs of one job, from the job's seed (numpy's PCG64 via default_rng)."""
    if n < 1:
        raise ValueError(f"need at least one run, got n_repeats = {n}")
    return [int(s) for s in np.random.default_rng(seed).integers(0, 2**31 - 1, n)]


def versions(*packages: str) -> str:
    """``name==version`` of installed distributions (recorded in the output, checked against the pins by dpgrid)."""
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for p in packages:
        try:
            out.append(f"{p}=={version(p)}")
        except PackageNotFoundError:
            out.append(f"{p}==not-installed")
    return " ".join(out)


# ------------------------------------------------------------------------------------------------
# loading modules of a package by path


def load_modules(package: str, directory: str | os.PathLike, modules: list[str]) -> dict[str, types.ModuleType]:
    """Import ``package.<m>`` for each ``m`` of ``modules`` from ``directory`` without running the package's
    ``__init__.py``: an empty package module is registered first, so the modules' relative imports
    (``from ._cedskmeans import ...``) resolve inside ``directory``. Modules load in the given order."""
    directory = Path(directory)
    if not directory.is_dir():
        raise ValueError(f"{directory}: no such folder (the {package} sources)")
    pkg = types.ModuleType(package)
    pkg.__path__ = [str(directory)]
    sys.modules[package] = pkg
    out = {}
    for name in modules:
        path = directory / f"{name}.py"
        if not path.is_file():
            raise ValueError(f"{path}: missing module {package}.{name}")
        spec = importlib.util.spec_from_file_location(f"{package}.{name}", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        setattr(pkg, name, mod)
        out[name] = mod
    return out


@contextlib.contextmanager
def patched(owner, name: str, value):
    """Set ``owner.name = value`` for the duration of the block, then restore the original."""
    old = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield value
    finally:
        setattr(owner, name, old)


# ------------------------------------------------------------------------------------------------
# budgets actually spent by a peer's mechanisms


class BudgetRecorder:
    """The (eps, delta) of every mechanism call of a fit, grouped by iteration and, inside an iteration, by
    disjoint group of records (a cluster: one point's presence changes the count and sum of one cluster only).

    :meth:`spent` composes them: parallel composition over the groups of an iteration (the maximum) and
    sequential composition over the iterations (the sum) -- the add/remove-one-point neighbours of DPLloyd
    (Su et al. 2016), the neighbours of dpgrid's leave-one-out analysis.
    """

    def __init__(self) -> None:
        self.iterations: list[list[list[tuple[str, float, float]]]] = []

    def begin_iteration(self, *args, **kwargs) -> None:
        self.iterations.append([])

    def begin_group(self) -> None:
        if not self.iterations:
            raise RuntimeError("a mechanism group started before any iteration (instrumentation out of order)")
        self.iterations[-1].append([])

    def record(self, kind: str, epsilon: float, delta: float) -> None:
        if not self.iterations or not self.iterations[-1]:
            raise RuntimeError(f"{kind} mechanism used outside a group (instrumentation out of order)")
        if not epsilon >= 0 or not 0 <= delta <= 1:
            raise ValueError(f"{kind} mechanism with budget ({epsilon!r}, {delta!r})")
        self.iterations[-1][-1].append((kind, float(epsilon), float(delta)))

    def per_iteration(self) -> list[tuple[float, float]]:
        """(eps, delta) of each iteration: the largest group's sums (parallel composition)."""
        out = []
        for groups in self.iterations:
            sums = [(sum(e for _, e, _ in g), sum(d for _, _, d in g)) for g in groups] or [(0.0, 0.0)]
            out.append((max(s[0] for s in sums), max(s[1] for s in sums)))
        return out

    def spent(self) -> tuple[float, float]:
        """(eps, delta) of the whole fit: the sums over the iterations (sequential composition)."""
        it = self.per_iteration()
        return float(sum(e for e, _ in it)), float(min(1.0, sum(d for _, d in it)))

    def kinds(self) -> dict[str, float]:
        """Total eps recorded per mechanism kind in the first group of each iteration (for the report)."""
        out: dict[str, float] = {}
        for groups in self.iterations:
            for kind, e, _ in groups[0] if groups else []:
                out[kind] = out.get(kind, 0.0) + e
        return out


def recording_mechanism(cls: type, recorder: BudgetRecorder, kind: str, *, starts_group: bool = False) -> type:
    """A subclass of the mechanism class ``cls`` whose ``randomise`` records the instance's ``epsilon`` and
    ``delta`` in ``recorder`` (starting a new group first if ``starts_group``) before randomising."""

    def randomise(self, value):
        if starts_group:
            recorder.begin_group()
        recorder.record(kind, self.epsilon, getattr(self, "delta", 0.0))
        return cls.randomise(self, value)

    return type(cls.__name__, (cls,), {"randomise": randomise, "__module__": __name__})


def calling_first(cls: type, method: str, hook) -> type:
    """A subclass of ``cls`` whose ``method`` calls ``hook()`` first (e.g. to mark an iteration)."""
    original = getattr(cls, method)

    def wrapper(self, *args, **kwargs):
        hook()
        return original(self, *args, **kwargs)

    return type(cls.__name__, (cls,), {method: wrapper, "__module__": __name__})


# ------------------------------------------------------------------------------------------------
# CEDSKMeans: the calibration and the noise it actually applies


class NoiseTap:
    """Records what CEDSKMeans' colored-noise step uses, and draws its noise from a seeded RandomState.

    * ``gammas``: every gamma_c passed to its Lagrange-multiplier step (eq. 13 as it calibrates it);
    * ``shift_matrices``: every C_XX' (columns = centroid shifts of the removals) it sorts by norm;
    * ``covariances``: every covariance its noise is drawn from.
    The draw is ``RandomState(seed).multivariate_normal`` -- the algorithm of numpy's global
    ``np.random.multivariate_normal``, which the peer calls, on a stream of its own.
    """

    def __init__(self, seed: int) -> None:
        self.rs = np.random.RandomState(seed)
        self.gammas: list[float] = []
        self.shift_matrices: list[np.ndarray] = []
        self.covariances: list[np.ndarray] = []

    def draw(self, mean, cov, *args, **kwargs):
        cov = np.asarray(cov, dtype=float)
        self.covariances.append(cov.copy())
        return self.rs.multivariate_normal(mean, cov, *args, **kwargs)

    def single(self) -> tuple[float, np.ndarray, np.ndarray]:
        """(gamma_c, C_XX', covariance) of a fit that ran the noise step exactly once."""
        n = (len(self.gammas), len(self.shift_matrices), len(self.covariances))
        if n != (1, 1, 1):
            raise RuntimeError(f"expected one calibration, one shift matrix and one noise draw per fit, recorded {n}")
        return self.gammas[0], self.shift_matrices[0], self.covariances[0]


class _RandomProxy:
    def __init__(self, tap: NoiseTap) -> None:
        self._tap = tap

    def multivariate_normal(self, mean, cov, *args, **kwargs):
        return self._tap.draw(mean, cov, *args, **kwargs)

    def __getattr__(self, name):
        raise AttributeError(
            f"the instrumented peer called numpy.random.{name}, which would use numpy's global "
            "random state; only multivariate_normal is expected"
        )


class _NumpyProxy:
    """numpy for one module: ``random.multivariate_normal`` goes to the tap, everything else to numpy."""

    def __init__(self, tap: NoiseTap) -> None:
        self.random = _RandomProxy(tap)

    def __getattr__(self, name):
        return getattr(np, name)


@contextlib.contextmanager
def instrument_cedskmeans(module: types.ModuleType, tap: NoiseTap):
    """Within the block, CEDSKMeans' module ``_cedskmeans`` reports to ``tap``: the gamma_c given to
    ``_calculate_langrange_multiplier``, the matrix given to ``_sort_columns_by_norm`` (its C_XX') and the
    noise draw (its module-level ``np`` is replaced by a proxy whose random.multivariate_normal is the tap's)."""
    lagrange = module._calculate_langrange_multiplier
    sort_cols = module._sort_columns_by_norm

    def _lagrange(matrix, gamma_c):
        tap.gammas.append(float(gamma_c))
        return lagrange(matrix, gamma_c)

    def _sort(matrix):
        tap.shift_matrices.append(np.array(matrix, dtype=float, copy=True))
        return sort_cols(matrix)

    with (
        patched(module, "_calculate_langrange_multiplier", _lagrange),
        patched(module, "_sort_columns_by_norm", _sort),
        patched(module, "np", _NumpyProxy(tap)),
    ):
        yield tap
