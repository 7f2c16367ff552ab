#!/usr/bin/env python3
"""SHA-256 digests of a results directory, and their comparison (standard library only).

    python3 .ci/results_digest.py write RESULTS_DIR OUT.sha256
    python3 .ci/results_digest.py compare A B

``write`` lists every regular file under RESULTS_DIR (hidden files included, so a temporary file
left behind by an interrupted job shows up) as ``<sha256>  <relative path>`` lines sorted by path;
the format is the one of ``sha256sum``, so ``cd RESULTS_DIR && sha256sum -c OUT.sha256`` also
checks it. ``compare`` takes two digest files or two results directories (or one of each), prints
the files present only in B (added), only in A (missing) and present in both with different
content (differing), and the number of files compared. Exit status: 0 identical, 1 different,
2 usage error. Nothing is excluded: figures (PDF/PNG) are written with fixed metadata and are
byte-reproducible, so they are compared like the tables.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

USAGE = __doc__.split("\n\n")[1]


class DigestError(Exception):
    """Bad input (missing directory, malformed digest file)."""


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def digest_dir(root: Path) -> dict[str, str]:
    """``{relative posix path: sha256}`` of every file under ``root`` (symlinks to files followed)."""
    if not root.is_dir():
        raise DigestError(f"results directory {root} does not exist or is not a directory")
    digests: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in filenames:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if "\n" in rel or "\r" in rel:
                raise DigestError(f"file name with a line break under {root}: {rel!r}")
            if not path.is_file():
                raise DigestError(f"{path} is not a regular file (broken symlink, socket, ...)")
            digests[rel] = file_sha256(path)
    return dict(sorted(digests.items()))


def format_digests(digests: dict[str, str]) -> str:
    return "".join(f"{digest}  {rel}\n" for rel, digest in sorted(digests.items()))


def read_digest_file(path: Path) -> dict[str, str]:
    if not path.is_file():
        raise DigestError(f"digest file {path} does not exist")
    digests: dict[str, str] = {}
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        digest, sep, rel = line.partition("  ")
        if not sep or len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest) or not rel:
            raise DigestError(f"{path}:{lineno}: expected '<64 hex digits>  <path>', got {line!r}")
        if rel in digests:
            raise DigestError(f"{path}:{lineno}: {rel} listed twice")
        digests[rel] = digest
    return digests


def load(path_str: str) -> dict[str, str]:
    """Digests from a results directory or a digest file."""
    path = Path(path_str)
    return digest_dir(path) if path.is_dir() else read_digest_file(path)


def compare(a: dict[str, str], b: dict[str, str]) -> tuple[list[str], list[str], list[str]]:
    """(added: only in b, missing: only in a, differing: in both with different digests)."""
    added = sorted(set(b) - set(a))
    missing = sorted(set(a) - set(b))
    differing = sorted(rel for rel in set(a) & set(b) if a[rel] != b[rel])
    return added, missing, differing


def cmd_write(results_dir: str, out: str) -> int:
    digests = digest_dir(Path(results_dir))
    out_path = Path(out)
    tmp = out_path.with_name(f".{out_path.name}.tmp")
    tmp.write_text(format_digests(digests), encoding="utf-8")
    os.replace(tmp, out_path)
    print(f"results_digest: {len(digests)} files under {results_dir} -> {out}")
    return 0


def cmd_compare(a_str: str, b_str: str) -> int:
    a, b = load(a_str), load(b_str)
    added, missing, differing = compare(a, b)
    for label, files in (("added (only in B)", added), ("missing (only in A)", missing), ("differing", differing)):
        for rel in files:
            print(f"{label}: {rel}")
    same = len(set(a) & set(b)) - len(differing)
    print(
        f"results_digest: A={a_str} ({len(a)} files), B={b_str} ({len(b)} files): "
        f"{same} identical, {len(differing)} differing, {len(added)} added, {len(missing)} missing"
    )
    if not a and not b:
        print("results_digest: both sides are empty; nothing was compared", file=sys.stderr)
        return 1
    return 1 if added or missing or differing else 0


def main(argv: list[str]) -> int:
    try:
        if len(argv) == 3 and argv[0] == "write":
            return cmd_write(argv[1], argv[2])
        if len(argv) == 3 and argv[0] == "compare":
            return cmd_compare(argv[1], argv[2])
    except DigestError as exc:
        print(f"results_digest: error: {exc}", file=sys.stderr)
        return 2
    print(f"usage:\n{USAGE}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
