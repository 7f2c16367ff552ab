"""Shared test fixtures: repository paths and the offline mirror."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = (REPO / ".." / "shared" / "data").resolve()

if str(REPO / "src") not in sys.path:
    sys.path.insert(0, str(REPO / "src"))


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The offline mirror of third-party files (../shared/data); tests needing it skip without it."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"offline mirror {SHARED_DATA} not present")
    return SHARED_DATA


def snakemake_env(**extra: str) -> dict[str, str]:
    """Environment for Snakemake subprocesses: this checkout's package first, the offline mirror set."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    if SHARED_DATA.is_dir():
        env.setdefault("DPGRID_MIRROR", str(SHARED_DATA))
    env.update(extra)
    return env
