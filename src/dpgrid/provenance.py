"""Source hashes of dpgrid modules.

Snakemake reruns a job when its code, input, params or software environment change, but it does
not see edits to Python modules a script imports. Rules therefore carry a ``params`` entry holding
:func:`source_hash` of the modules they depend on; with Snakemake's default ``params`` rerun
trigger, editing any of those modules reruns exactly the dependent jobs.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
from pathlib import Path


def _module_files(module: str) -> list[Path]:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"cannot hash source of unknown module {module!r}")
    origin = Path(spec.origin)
    if origin.name == "__init__.py":
        return sorted(origin.parent.rglob("*.py"))
    return [origin]


@functools.lru_cache(maxsize=None)
def _file_digest(path: Path, mtime_ns: int) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source_hash(*modules: str) -> str:
    """SHA-256 (first 16 hex digits) over the source of ``modules`` (packages include all files).

    ``dpgrid.io``, ``dpgrid.seeds``, ``dpgrid.sweeps`` and ``dpgrid.claims`` are always included:
    they shape every output (``dpgrid.sweeps`` names the files and random streams of sweep jobs).
    """
    names = sorted(set(modules) | {"dpgrid.io", "dpgrid.seeds", "dpgrid.sweeps", "dpgrid.claims"})
    h = hashlib.sha256()
    seen: set[Path] = set()
    for name in names:
        for f in _module_files(name):
            if f in seen:
                continue
            seen.add(f)
            rel = f.name if name.count(".") == 0 else str(f).split("dpgrid", 1)[-1]
            h.update(rel.encode())
            h.update(_file_digest(f, f.stat().st_mtime_ns).encode())
    return h.hexdigest()[:16]
