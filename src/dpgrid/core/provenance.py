"""Code provenance of a job: the hash of every dpgrid module its script can execute.

Snakemake reruns a job when its params change, but it does not see edits to the Python modules a
script imports. Every rule therefore carries a ``code`` param (added to all rules at once by
``add_code_params`` in ``workflow/rules/common.smk``): :func:`code_hash` of the rule's script,
i.e. the SHA-256 over the source of the transitive closure of the ``dpgrid`` modules the script
imports, found by reading the ``import`` statements (module level and inside functions) with
:mod:`ast`. Nothing is listed by hand, so the lists cannot drift: editing a module reruns exactly
the jobs whose scripts can reach it, and a module no job reaches triggers nothing.

Rules of the closure: ``import dpgrid.a.b`` and ``from dpgrid.a import b`` reach ``dpgrid.a.b``
(if it is a module) and every package ``__init__`` on the way (Python executes them); relative
imports are resolved against the importing module. Imports of other packages are not followed.

Reading the imports means parsing every module (about 200 files, most of the CPU time of a ``snakemake -n`` or
a no-op rerun, and of every SLURM job's own Snakemake start-up): :func:`use_import_cache` keeps the
import lists of a run in a JSON file keyed by each file's module name and SHA-256 (``add_code_params`` uses
``.snakemake/dpgrid/imports.json``), so a later run parses only the files that changed. The cache holds
what :mod:`ast` would find, never a hash: a stale or corrupt cache file is ignored and rewritten.
"""

from __future__ import annotations

import ast
import atexit
import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path

PACKAGE = "dpgrid"
PACKAGE_DIR = Path(__file__).resolve().parents[1]  # src/dpgrid


class ProvenanceError(RuntimeError):
    """An import that cannot be resolved to a dpgrid source file."""


def module_file(name: str, root: Path = PACKAGE_DIR) -> Path | None:
    """Source file of dpgrid module ``name`` (a package's ``__init__.py``), or None if it is not a module."""
    return _module_file(name, Path(root))


@functools.cache
def _module_file(name: str, root: Path) -> Path | None:
    parts = name.split(".")
    if parts[0] != PACKAGE:
        return None
    base = root.joinpath(*parts[1:])
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    return None


def _module_name(path: Path, root: Path) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = [PACKAGE, *rel.parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _with_parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


# The persistent cache in effect (use_import_cache): "<module name>|<is package>|<sha256>" -> imports.
_PERSISTENT: dict[str, list[list]] | None = None
_PERSISTENT_USED: dict[str, list[list]] = {}


@functools.cache
def _imports(path: Path, mtime_ns: int, root: Path) -> tuple[tuple[str, bool], ...]:
    """(name, must be a module) for the dpgrid names in the import statements of ``path``.

    ``import a.b`` and the ``a`` of ``from a import b`` must be modules; the ``a.b`` of ``from a import b``
    is a module or a name defined in ``a``.
    """
    here = _module_name(path, root) if path.is_relative_to(root) else ""
    is_pkg = path.name == "__init__.py"
    if _PERSISTENT is None:
        return _parse_imports(path, here, is_pkg)
    key = f"{here}|{int(is_pkg)}|{_file_digest(path, mtime_ns)}"
    cached = _PERSISTENT.get(key)
    if cached is None:
        found = _parse_imports(path, here, is_pkg)
        cached = [[n, req] for n, req in found]
    _PERSISTENT_USED[key] = cached
    return tuple((str(n), bool(req)) for n, req in cached)


def _parse_imports(path: Path, here: str, is_pkg: bool) -> tuple[tuple[str, bool], ...]:
    tree = ast.parse(path.read_bytes(), filename=str(path))
    found: list[tuple[str, bool]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, True) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if not here:
                    raise ProvenanceError(f"{path}: relative import outside the {PACKAGE} package")
                base = here.split(".")
                base = base if is_pkg else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            found.append((mod, True))
            found += [(f"{mod}.{a.name}", False) for a in node.names if a.name != "*"]
    return tuple((n, req) for n, req in found if n == PACKAGE or n.startswith(PACKAGE + "."))


_PERSISTENT_FILE: Path | None = None


def use_import_cache(cache_file: str | os.PathLike) -> None:
    """From now on in this process, read the import lists of unchanged files from ``cache_file`` instead of
    parsing them, and write the lists used back when the process exits (atomically, and only if any was new,
    so a no-op run writes nothing). A missing, unreadable or malformed cache counts as empty; an unwritable one
    is left alone. Snakemake evaluates some code params (per-job ones) after the Snakefile has been read,
    hence a process-wide switch rather than a block."""
    global _PERSISTENT, _PERSISTENT_FILE
    cache_file = Path(cache_file).resolve()
    try:
        loaded = json.loads(cache_file.read_text(encoding="utf-8"))
        if not isinstance(loaded, dict) or not all(
            isinstance(v, list) and all(isinstance(x, list) and len(x) == 2 for x in v) for v in loaded.values()
        ):
            loaded = {}
    except (OSError, ValueError):
        loaded = {}
    if _PERSISTENT_FILE is None:
        atexit.register(save_import_cache)
    else:
        save_import_cache()  # another workflow in the same process (tests): write the previous one's lists first
    _PERSISTENT, _PERSISTENT_FILE = loaded, cache_file
    _PERSISTENT_USED.clear()
    _imports.cache_clear()


def save_import_cache() -> None:
    """Write the import lists used since :func:`use_import_cache` to its file, if any was not in it."""
    if _PERSISTENT_FILE is None or _PERSISTENT is None or not _PERSISTENT_USED.keys() - _PERSISTENT.keys():
        return
    try:
        _PERSISTENT_FILE.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=_PERSISTENT_FILE.parent, prefix=f".{_PERSISTENT_FILE.name}.", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(_PERSISTENT_USED, fh, sort_keys=True)
        os.replace(tmp, _PERSISTENT_FILE)
        _PERSISTENT.update(_PERSISTENT_USED)
    except OSError:
        Path(tmp).unlink(missing_ok=True)


def module_closure(script: str | Path, root: Path = PACKAGE_DIR) -> list[Path]:
    """Every dpgrid source file reachable from ``script`` through imports, sorted."""
    root = Path(root).resolve()
    seen: set[Path] = set()
    todo = [Path(script).resolve()]
    start = todo[0]
    while todo:
        path = todo.pop()
        for name, required in _imports(path, path.stat().st_mtime_ns, root):
            if required and _module_file(name, root) is None:
                raise ProvenanceError(f"{path}: cannot resolve import of {name!r} under {root}")
            for candidate in _with_parents(name):
                f = _module_file(candidate, root)  # (root is already a Path: no per-call Path() construction)
                if f is not None and f not in seen:
                    seen.add(f)
                    todo.append(f)
    seen.discard(start)
    return sorted(seen)


@functools.cache
def _file_digest(path: Path, mtime_ns: int) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def files_hash(files, root: Path = PACKAGE_DIR) -> str:
    """SHA-256 (first 16 hex digits) over the relative names and contents of ``files``."""
    h = hashlib.sha256()
    for f in sorted(files):
        h.update(Path(f).relative_to(root).as_posix().encode())
        h.update(_file_digest(f, f.stat().st_mtime_ns).encode())
    return h.hexdigest()[:16]


def code_hash(script: str | Path, root: Path = PACKAGE_DIR, extra_modules=()) -> str:
    """Hash of the dpgrid source a script can execute (see the module docstring).

    ``extra_modules``: dotted names of modules a job loads by name (:func:`importlib.import_module`) besides its
    script's imports, e.g. the paper stand-in that a meter-data job's config names; each one's file and closure
    are hashed too."""
    root = Path(root).resolve()
    files = set(module_closure(script, root))
    for name in extra_modules:
        f = _module_file(name, root)
        if f is None:
            raise ProvenanceError(f"{script}: cannot resolve module {name!r} under {root}")
        files |= {f, *module_closure(f, root)}
    return files_hash(files, root)
