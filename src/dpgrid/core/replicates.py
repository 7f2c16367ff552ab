"""Replicates of a run on two seed axes: the data draws and the mechanisms' noise (docs/seeds.md).

Replicate ``(d, n)`` is data replicate ``d`` (the stand-in populations and homes, the synthetic class models, every
fit and clustering of those data) and noise replicate ``n`` (every mechanism's noise and the Monte-Carlo evaluation
of its releases). Each axis has its own root seed, derived from the config's ``seed``:

* the data seed of ``d`` is ``seed`` itself for ``d = 0``, else a stream of ``seed`` keyed ``("replicate", "data",
  d)``;
* the noise seed of ``(d, n)`` is the data seed of ``d`` for ``n = 0``, else a stream of ``seed`` keyed
  ``("replicate", "noise", d, n)``.

So replicate ``(0, 0)`` is the run itself (the same seeds, the same files), and ``(d, 0)`` is the run with ``seed``
set to the data seed of ``d``. A job draws its data from the data seed and its noise from the noise seed; a job that
does both (a Blowfish day: population, then price noise) draws the noise after the data on one generator when the
two seeds are equal, and from a generator of the noise seed otherwise (:func:`noise_generator`).

Files: a data-level output of replicate ``(d, n)`` is the run's file under :func:`data_folder` ``(d)``
(``replicates/d<d>/``, empty for ``d = 0``), a noise-level one under that and :func:`noise_folder` ``(n)``
(``n<n>/``, empty for ``n = 0``): the noise replicates of one data replicate share its data-level jobs (ARMA fits,
clustering, OPF base cases). The rules name the two folders by the wildcards :data:`DATA_WILDCARD` and
:data:`NOISE_WILDCARD`, whose values match :data:`DATA_FOLDER_PATTERN` and :data:`NOISE_FOLDER_PATTERN`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np

from dpgrid.core.seeds import job_rng, job_seed_sequence

DATA_WILDCARD = "drep"
NOISE_WILDCARD = "nrep"
DATA_FOLDER_PATTERN = r"(replicates/d[1-9][0-9]*/)?"
NOISE_FOLDER_PATTERN = r"(n[1-9][0-9]*/)?"
_DATA_FOLDER = re.compile(r"replicates/d([1-9][0-9]*)/")
_NOISE_FOLDER = re.compile(r"n([1-9][0-9]*)/")


def data_folder(d: int) -> str:
    """The folder of data replicate ``d`` under the run's folders ("" for ``d = 0``)."""
    return "" if _natural(d, "data replicate") == 0 else f"replicates/d{d}/"


def noise_folder(n: int) -> str:
    """The folder of noise replicate ``n`` under its data replicate's folder ("" for ``n = 0``)."""
    return "" if _natural(n, "noise replicate") == 0 else f"n{n}/"


def data_index(folder: str) -> int:
    """The data replicate of a :func:`data_folder` value."""
    return _parse(folder, _DATA_FOLDER, "data")


def noise_index(folder: str) -> int:
    """The noise replicate of a :func:`noise_folder` value."""
    return _parse(folder, _NOISE_FOLDER, "noise")


def replicate_path(pattern: str, d: int = 0, n: int = 0) -> str:
    """A rule's path ``pattern`` (with the wildcards ``{drep}`` and ``{nrep}``, or without) for replicate ``(d, n)``;
    by default replicate (0, 0), the run's own file."""
    return pattern.replace("{" + DATA_WILDCARD + "}", data_folder(d)).replace(
        "{" + NOISE_WILDCARD + "}", noise_folder(n)
    )


def data_seed(seed: int, d: int) -> int:
    """The root seed of data replicate ``d`` (``seed`` for ``d = 0``)."""
    if _natural(d, "data replicate") == 0:
        return _natural(seed, "root seed")
    return _derived(seed, "data", d)


def noise_seed(seed: int, d: int, n: int) -> int:
    """The root seed of noise replicate ``n`` of data replicate ``d`` (the data seed for ``n = 0``)."""
    if _natural(n, "noise replicate") == 0:
        return data_seed(seed, d)
    return _derived(seed, "noise", _natural(d, "data replicate"), n)


def noise_generator(
    data_rng: np.random.Generator, data_root: int, noise_root: int, *keys: object
) -> np.random.Generator:
    """The generator of a job's noise draws when the job also draws data from ``data_rng`` (``job_rng(data_root,
    *keys)``): ``data_rng`` itself when the two root seeds are equal (noise replicate 0: the noise follows the data
    on one stream, as in a run without replicates), else ``job_rng(noise_root, *keys)``."""
    if int(noise_root) == int(data_root):
        return data_rng
    return job_rng(noise_root, *keys)


def replicate_grid(n_data: int, n_noise: int) -> Iterator[tuple[int, int]]:
    """Every replicate ``(d, n)`` of ``n_data`` data replicates with ``n_noise`` noise replicates each, ``(0, 0)``
    first, data-major."""
    for count, axis in ((n_data, "data"), (n_noise, "noise")):
        _natural(count, f"replicates.{axis}", minimum=1)
    for d in range(n_data):
        for n in range(n_noise):
            yield d, n


def _derived(seed: int, axis: str, *indices: int) -> int:
    state = job_seed_sequence(_natural(seed, "root seed"), "replicate", axis, *indices).generate_state(2, np.uint32)
    return int(state[0]) | (int(state[1]) << 32)


def _natural(value: int, what: str, minimum: int = 0) -> int:
    """``value`` as an int when it is an integer (not a bool) of at least ``minimum``; else ValueError naming
    ``what``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        kind = "a non-negative integer" if minimum == 0 else f"an integer >= {minimum}"
        raise ValueError(f"{what} must be {kind}, got {value!r}")
    return int(value)


def _parse(folder: str, pattern: re.Pattern, axis: str) -> int:
    if folder == "":
        return 0
    m = pattern.fullmatch(folder)
    if m is None:
        raise ValueError(f"{folder!r} is not a {axis} replicate folder")
    return int(m.group(1))
