"""Per-job random streams derived from one root seed.

Every random draw in dpgrid comes from a :class:`numpy.random.Generator` that is passed down
explicitly. A pipeline job obtains its generator with :func:`job_rng` from the config's root
seed and a tuple of keys naming the job (paper, experiment, wildcards). The stream therefore
depends only on *what* is computed, never on job order, core count or which machine runs it.
"""

from __future__ import annotations

import hashlib

import numpy as np


def key_to_int(key: object) -> int:
    """Map a key (str, int, float, ...) to a stable 32-bit integer.

    Python's ``hash`` is salted per process, so a SHA-256 of the key's ``repr`` is used.
    """
    if isinstance(key, (int, np.integer)) and 0 <= int(key) < 2**32:
        return int(key)
    digest = hashlib.sha256(repr(key).encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "little")


def job_seed_sequence(root_seed: int, *keys: object) -> np.random.SeedSequence:
    """SeedSequence for the job named by ``keys`` under ``root_seed``."""
    if not isinstance(root_seed, (int, np.integer)) or root_seed < 0:
        raise ValueError(f"root seed must be a non-negative integer, got {root_seed!r}")
    return np.random.SeedSequence(entropy=int(root_seed), spawn_key=tuple(key_to_int(k) for k in keys))


def job_rng(root_seed: int, *keys: object) -> np.random.Generator:
    """Generator for the job named by ``keys`` (e.g. ``job_rng(seed, "<paper>", "fig3", rho)``)."""
    return np.random.Generator(np.random.PCG64(job_seed_sequence(root_seed, *keys)))
