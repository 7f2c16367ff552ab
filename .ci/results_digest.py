#!/usr/bin/env python3
"""SHA-256 digests of a results directory, and their comparison (standard library only).

    python3 .ci/results_digest.py write RESULTS_DIR OUT.sha256
    python3 .ci/results_digest.py compare A B [--only GLOB]... [--skip GLOB]... [--a-may-have-more]

``write`` lists every regular file under RESULTS_DIR (hidden files included, so a temporary file
left behind by an interrupted job shows up) as ``<sha256>  <relative path>`` lines sorted by path;
the format is the one of ``sha256sum``, so ``cd RESULTS_DIR && sha256sum -c OUT.sha256`` also
checks it. ``compare`` takes two digest files or two results directories (or one of each), prints
the files present only in B (added), only in A (missing) and present in both with different
content (differing), and the number of files compared. ``--only GLOB`` keeps the paths that match
one of the globs (fnmatch: ``*`` also matches ``/``), ``--skip GLOB`` drops those that match one;
both apply to A and B. ``--a-may-have-more`` accepts files only in A (a run of fewer targets than
A's is compared with A), counts them, and still fails on any file only in B or differing. Exit
status: 0 identical, 1 different, 2 usage error. Nothing is excluded: figures (PDF/PNG) are written with fixed metadata and are
byte-reproducible, so they are compared like the tables.
"""

from __future__ import annotations

import fnmatch
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


def select(digests: dict[str, str], only: list[str], skip: list[str]) -> dict[str, str]:
    """The digests whose path matches one of ``only`` (all when empty) and none of ``skip``."""
    return {
        rel: d
        for rel, d in digests.items()
        if (not only or any(fnmatch.fnmatchcase(rel, g) for g in only))
        and not any(fnmatch.fnmatchcase(rel, g) for g in skip)
    }


def cmd_compare(a_str: str, b_str: str, only: list[str], skip: list[str], a_may_have_more: bool) -> int:
    a, b = select(load(a_str), only, skip), select(load(b_str), only, skip)
    added, missing, differing = compare(a, b)
    for label, files in (("added (only in B)", added), ("differing", differing)):
        for rel in files:
            print(f"{label}: {rel}")
    if not a_may_have_more:
        for rel in missing:
            print(f"missing (only in A): {rel}")
    same = len(set(a) & set(b)) - len(differing)
    scope = "".join(f" --only {g}" for g in only) + "".join(f" --skip {g}" for g in skip)
    print(
        f"results_digest: A={a_str} ({len(a)} files{scope and ', selected by' + scope}), B={b_str} ({len(b)} files): "
        f"{same} identical, {len(differing)} differing, {len(added)} added, {len(missing)} missing"
        + (" (allowed: --a-may-have-more)" if a_may_have_more and missing else "")
    )
    if not a and not b:
        print("results_digest: both sides are empty; nothing was compared", file=sys.stderr)
        return 1
    if not same:
        print("results_digest: no file is in both A and B; nothing was compared", file=sys.stderr)
        return 1
    return 1 if added or differing or (missing and not a_may_have_more) else 0


def parse_compare(args: list[str]) -> tuple[list[str], list[str], list[str], bool]:
    """(positional A and B, only globs, skip globs, a_may_have_more) of ``compare``'s arguments."""
    positional: list[str] = []
    only: list[str] = []
    skip: list[str] = []
    a_may_have_more = False
    it = iter(args)
    for arg in it:
        if arg in ("--only", "--skip"):
            glob = next(it, None)
            if glob is None:
                raise DigestError(f"{arg} needs a glob")
            (only if arg == "--only" else skip).append(glob)
        elif arg == "--a-may-have-more":
            a_may_have_more = True
        elif arg.startswith("--"):
            raise DigestError(f"unknown option {arg}")
        else:
            positional.append(arg)
    return positional, only, skip, a_may_have_more


def main(argv: list[str]) -> int:
    try:
        if len(argv) == 3 and argv[0] == "write":
            return cmd_write(argv[1], argv[2])
        if argv and argv[0] == "compare":
            positional, only, skip, a_may_have_more = parse_compare(argv[1:])
            if len(positional) == 2:
                return cmd_compare(*positional, only, skip, a_may_have_more)
    except DigestError as exc:
        print(f"results_digest: error: {exc}", file=sys.stderr)
        return 2
    print(f"usage:\n{USAGE}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
