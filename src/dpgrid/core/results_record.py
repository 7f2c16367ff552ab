"""The record of what a run wrote, and the check that finds outputs edited by hand since.

Snakemake decides reruns from modification times, params and code, not from the content of its outputs: an
output edited by hand (a result CSV opened and saved in a spreadsheet) is newer than its inputs, so the job
that made it is **not** rerun, and every job that reads it **is** rerun (its input is newer than its output),
from the edited content. Snakemake itself never says that a file was edited.

At the end of every successful run (``onsuccess``, workflow/rules/common.smk) :func:`write_record` stores the
SHA-256 of every file under ``results/`` and ``resources/`` (virtual environments left out) in
``.snakemake/dpgrid/outputs.sha256`` (``sha256sum`` format, outside the outputs, so they are unchanged).
``python -m dpgrid.core.results_record`` compares the files with that record and names every file changed,
added or removed since, with what to do; exit status 0 when nothing changed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

#: The folders whose files the record covers, and the file of the record (relative to the repository).
RECORDED = ("results", "resources")
RECORD = Path(".snakemake") / "dpgrid" / "outputs.sha256"
#: Folders left out of the record (a virtual environment a rule builds: thousands of files of pip's).
SKIPPED_DIRS = {"venv", "__pycache__"}


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def digests(root: str | os.PathLike = ".") -> dict[str, str]:
    """``{path relative to root: sha256}`` of every file under the :data:`RECORDED` folders of ``root``."""
    root = Path(root)
    out = {}
    for top in RECORDED:
        for folder, dirs, files in os.walk(root / top):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
            for name in sorted(files):
                p = Path(folder) / name
                if p.is_file():
                    out[p.relative_to(root).as_posix()] = _sha256(p)
    return out


def write_record(root: str | os.PathLike = ".") -> Path:
    """Store :func:`digests` of ``root`` in its :data:`RECORD` (atomically)."""
    root = Path(root)
    record = root / RECORD
    record.parent.mkdir(parents=True, exist_ok=True)
    tmp = record.with_name(record.name + ".part")
    tmp.write_text("".join(f"{d}  {p}\n" for p, d in sorted(digests(root).items())), encoding="utf-8")
    os.replace(tmp, record)
    return record


def read_record(root: str | os.PathLike = ".") -> dict[str, str] | None:
    """The record of ``root`` (None when no run has written one)."""
    record = Path(root) / RECORD
    if not record.is_file():
        return None
    out = {}
    for line in record.read_text(encoding="utf-8").splitlines():
        digest, _, path = line.partition("  ")
        out[path] = digest
    return out


def changes(root: str | os.PathLike = ".") -> dict[str, list[str]]:
    """Files ``changed`` (other content), ``added`` and ``removed`` since the record (raises FileNotFoundError
    without one)."""
    old = read_record(root)
    if old is None:
        raise FileNotFoundError(f"{Path(root) / RECORD}: no record; a successful snakemake run writes it")
    new = digests(root)
    return {
        "changed": sorted(p for p in old.keys() & new.keys() if old[p] != new[p]),
        "added": sorted(new.keys() - old.keys()),
        "removed": sorted(old.keys() - new.keys()),
    }


def report(found: dict[str, list[str]]) -> str:
    lines = []
    if found["changed"]:
        lines.append("changed since the last run (edited by hand?):")
        lines += [f"  {p}" for p in found["changed"]]
        lines.append(
            "Snakemake does not rerun the job that made such a file (it is newer than its inputs) and reruns the "
            "jobs that read it, from the edited content: delete the file (snakemake then makes it again) or run "
            "snakemake --forcerun <file>"
        )
    for kind in ("added", "removed"):
        if found[kind]:
            lines.append(f"{kind} since the last run:")
            lines += [f"  {p}" for p in found[kind]]
    return "\n".join(lines) or "no output changed since the last run"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m dpgrid.core.results_record", description=__doc__.split("\n\n")[0])
    p.add_argument("root", nargs="?", default=".", help="the repository folder (default: the current one)")
    args = p.parse_args(argv)
    try:
        found = changes(args.root)
    except FileNotFoundError as e:
        print(e, file=sys.stderr)
        return 2
    print(report(found))
    return 1 if any(found.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
