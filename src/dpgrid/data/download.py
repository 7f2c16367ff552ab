"""Verified downloads of pinned files, or copies from an offline mirror folder.

:func:`fetch` streams a URL to a temporary file in the destination's folder, checks the size
against ``Content-Length`` (and an optional pinned size), verifies the pinned SHA-256 and only then
renames the file onto the destination (atomic). On any failure (HTTP error such as 404, connection
error or timeout, truncated body, size or checksum mismatch) it raises :class:`DownloadError`
naming the URL, the destination and, for a checksum, the expected and actual digests, and leaves
no partial or temporary file.

Mirror mode: with ``mirror`` set (config ``data.mirror`` or the environment variable
``DPGRID_MIRROR``, which wins when set and non-empty; see :func:`mirror_root`), the same call copies
``<mirror>/<mirror_path>`` instead of downloading, with the same checksum verification and atomic
rename. A mirror file may differ from the canonical download (the shared mirror holds only an excerpt
of the UCI household data, not the zip), so every mirror file has its *own* pinned SHA-256 in config
(``mirror_sha256`` here). A relative mirror path is relative to the current working directory.

Unpinned files (``sha256=None``) are refused: the file is downloaded, its digest is computed and
reported in the error so that a maintainer can verify it and pin it in config; nothing is kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import logging
import os
import shutil
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

from dpgrid.core.io import new_file_mode

LOG = logging.getLogger(__name__)

MIRROR_ENV = "DPGRID_MIRROR"
CHUNK = 1 << 20
PROGRESS_EVERY_S = 5.0
PROGRESS_MIN_BYTES = 8 << 20  # log progress only for files larger than this


class DownloadError(RuntimeError):
    """A download or mirror copy that cannot be trusted; nothing was written."""


def mirror_root(config_mirror: str | None) -> Path | None:
    """The mirror folder in effect: ``$DPGRID_MIRROR`` if set and non-empty, else ``config_mirror``.

    Relative paths are resolved against the current working directory.
    """
    env = os.environ.get(MIRROR_ENV, "").strip()
    chosen = env or (config_mirror or None)
    return Path(chosen).resolve() if chosen else None


def sha256_file(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            h.update(block)
    return h.hexdigest()


@contextlib.contextmanager
def _temp_next_to(dest: Path):
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    # mkstemp creates mode 0600: the downloaded file gets the mode of every other output (group members of a
    # shared cluster can read it, as the umask says); copies and writes into it keep the mode
    os.chmod(tmp_path, new_file_mode())
    try:
        yield tmp_path
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()


def _verify(tmp: Path, sha256: str | None, origin: str, dest: Path) -> None:
    actual = sha256_file(tmp)
    if sha256 is None:
        raise DownloadError(
            f"{origin}: no pinned SHA-256 for {dest} (config value is null); the file received has "
            f"SHA-256 {actual} and {tmp.stat().st_size} bytes. Verify it independently and pin it in "
            f"config; nothing was written"
        )
    if actual != sha256.lower():
        raise DownloadError(
            f"{origin}: checksum mismatch for {dest}: expected SHA-256 {sha256.lower()}, "
            f"got {actual}; nothing was written"
        )


def _download_to(url: str, tmp: Path, dest: Path, timeout: float, size: int | None) -> None:
    req = urllib.request.Request(url, headers={"User-Agent": "dpgrid-download/1"})
    try:
        resp = urllib.request.urlopen(req, timeout=timeout)
    except urllib.error.HTTPError as e:
        raise DownloadError(
            f"{url}: HTTP error {e.code} {e.reason} while downloading {dest}; nothing was written"
        ) from e
    except (urllib.error.URLError, OSError) as e:
        raise DownloadError(f"{url}: cannot connect ({e}) while downloading {dest}; nothing was written") from e
    with resp:
        length = resp.headers.get("Content-Length")
        expected = int(length) if length is not None and length.isdigit() else None
        if size is not None and expected is not None and expected != size:
            raise DownloadError(
                f"{url}: server announces {expected} bytes for {dest}, but {size} are pinned; nothing was written"
            )
        total = expected if expected is not None else size
        got, t0, last = 0, time.perf_counter(), time.perf_counter()
        try:
            with open(tmp, "wb") as out:
                while True:
                    block = resp.read(CHUNK)
                    if not block:
                        break
                    out.write(block)
                    got += len(block)
                    now = time.perf_counter()
                    if total and total >= PROGRESS_MIN_BYTES and now - last >= PROGRESS_EVERY_S:
                        last = now
                        LOG.info(
                            "%s: %.1f / %.1f MB (%.0f%%, %.1f MB/s)",
                            url,
                            got / 1e6,
                            total / 1e6,
                            100 * got / total,
                            got / 1e6 / max(now - t0, 1e-9),
                        )
        except (OSError, http.client.HTTPException) as e:
            raise DownloadError(
                f"{url}: connection broken after {got} bytes while downloading {dest} ({e}); nothing was written"
            ) from e
    if expected is not None and got != expected:
        raise DownloadError(
            f"{url}: truncated body for {dest}: received {got} of {expected} bytes "
            f"(Content-Length); nothing was written"
        )
    if size is not None and got != size:
        raise DownloadError(f"{url}: received {got} bytes for {dest}, but {size} are pinned; nothing was written")
    LOG.info("%s: received %d bytes in %.1f s", url, got, time.perf_counter() - t0)


def fetch(
    url: str,
    sha256: str | None,
    dest: str | os.PathLike,
    *,
    mirror: str | os.PathLike | None = None,
    mirror_path: str | None = None,
    mirror_sha256: str | None = None,
    size: int | None = None,
    timeout: float = 60.0,
) -> Path:
    """Download ``url`` (or copy ``<mirror>/<mirror_path>``) to ``dest``, verified by SHA-256.

    ``mirror`` is the mirror folder (already resolved, e.g. by :func:`mirror_root`); when given,
    nothing is downloaded: the mirror file must exist and match ``mirror_sha256`` (default:
    ``sha256``, for a mirror that holds the canonical file). ``size`` is an optional pinned size in
    bytes (download mode). Returns ``dest``. Raises :class:`DownloadError`; never leaves a partial file.
    """
    dest = Path(dest)
    with _temp_next_to(dest) as tmp:
        if mirror is not None:
            if not mirror_path:
                raise DownloadError(
                    f"mirror {mirror}: no mirror file is configured for {url} ({dest}); "
                    f"unset the mirror (data.mirror / ${MIRROR_ENV}) to download it"
                )
            src = Path(mirror) / mirror_path
            if not src.is_file():
                raise DownloadError(
                    f"mirror {mirror}: file {mirror_path} not found (needed for {dest}; "
                    f"canonical source {url}); nothing was written"
                )
            shutil.copyfile(src, tmp)
            _verify(tmp, mirror_sha256 if mirror_sha256 is not None else sha256, f"mirror file {src}", dest)
            LOG.info("copied %s from mirror %s", dest, src)
        else:
            _download_to(url, tmp, dest, timeout, size)
            _verify(tmp, sha256, url, dest)
        os.replace(tmp, dest)
    return dest


def extract_member(archive: str | os.PathLike, member: str, dest: str | os.PathLike) -> Path:
    """Extract one ``member`` of a zip ``archive`` to ``dest`` atomically; zip CRC is checked."""
    archive, dest = Path(archive), Path(dest)
    try:
        zf = zipfile.ZipFile(archive)
    except zipfile.BadZipFile as e:
        raise DownloadError(f"{archive}: not a zip archive ({e})") from e
    with zf, _temp_next_to(dest) as tmp:
        if member not in zf.namelist():
            raise DownloadError(f"{archive}: member {member!r} not found (members: {zf.namelist()[:10]})")
        try:
            with zf.open(member) as src, open(tmp, "wb") as out:
                shutil.copyfileobj(src, out, CHUNK)
        except zipfile.BadZipFile as e:
            raise DownloadError(f"{archive}: member {member!r} is corrupt ({e}); nothing was written") from e
        os.replace(tmp, dest)
    return dest


def fetch_archive_member(spec: dict, dest: str | os.PathLike, *, mirror: Path | None, timeout: float = 600.0) -> Path:
    """Materialise the file ``spec['member']`` of a pinned zip download at ``dest``.

    ``spec`` is a ``data.downloads.<name>`` config entry (url, sha256, size, member, mirror{path,
    content, sha256}). Download mode and mirror mode with ``content: archive``: fetch the zip
    (verified), extract the member, delete the zip. Mirror mode with ``content: member``: copy the
    mirror's file (verified by its own pinned digest) as the member. The member's SHA-256 is recorded
    in ``<dest>.sha256`` (:func:`write_digest`) so that a later change is detected (:func:`verify_unchanged`).
    """
    dest = Path(dest)
    m = spec["mirror"]
    if mirror is not None and m["content"] == "member":
        fetch(
            spec["url"],
            spec["sha256"],
            dest,
            mirror=mirror,
            mirror_path=m["path"],
            mirror_sha256=m["sha256"],
            timeout=timeout,
        )
    else:
        zip_dest = dest.with_name(f".{dest.name}.archive.zip")
        try:
            fetch(
                spec["url"],
                spec["sha256"],
                zip_dest,
                mirror=mirror,
                mirror_path=m["path"] if mirror is not None else None,
                mirror_sha256=m["sha256"] if mirror is not None else None,
                size=spec["size"],
                timeout=timeout,
            )
            extract_member(zip_dest, spec["member"], dest)
        finally:
            with contextlib.suppress(FileNotFoundError):
                zip_dest.unlink()
    write_digest(dest)
    return dest


def fetch_file_set(
    base_url: str,
    files: dict[str, str],
    out_dir: str | os.PathLike,
    *,
    mirror: Path | None,
    mirror_dir: str,
    timeout: float = 60.0,
) -> list[Path]:
    """Fetch every ``relative path -> sha256`` of ``files`` from ``base_url`` (or ``<mirror>/<mirror_dir>``)
    into ``out_dir``, keeping the relative layout. On a failure, files of this set already written
    are removed (all or nothing)."""
    out_dir = Path(out_dir)
    done: list[Path] = []
    try:
        for rel, digest in files.items():
            done.append(
                fetch(
                    f"{base_url.rstrip('/')}/{rel}",
                    digest,
                    out_dir / rel,
                    mirror=mirror,
                    mirror_path=f"{mirror_dir}/{rel}",
                    timeout=timeout,
                )
            )
    except BaseException:
        for p in done:
            with contextlib.suppress(FileNotFoundError):
                p.unlink()
        raise
    return done


# ---- files already downloaded: detect a change after the download ----

DIGEST_SUFFIX = ".sha256"


def digest_path(path: str | os.PathLike) -> Path:
    """The digest file written next to a downloaded file (``<file>.sha256``)."""
    path = Path(path)
    return path.with_name(path.name + DIGEST_SUFFIX)


def write_digest(path: str | os.PathLike) -> Path:
    """Record the SHA-256 of a file just downloaded and verified, in ``<file>.sha256`` (``sha256sum`` format)."""
    path = Path(path)
    out = digest_path(path)
    tmp = out.with_name(f".{out.name}.part")
    tmp.write_text(f"{sha256_file(path)}  {path.name}\n", encoding="utf-8")
    os.replace(tmp, out)
    return out


def verify_unchanged(files: dict[str | os.PathLike, str | None]) -> None:
    """Check each downloaded ``file -> expected SHA-256`` (None: read ``<file>.sha256``) before it is used.

    Raises :class:`DownloadError` naming the file when its content changed after the download, so a
    hand-edited or corrupted file is never used silently.
    """
    for f, expected in files.items():
        f = Path(f)
        if expected is None:
            d = digest_path(f)
            if not d.is_file():
                raise DownloadError(f"{f}: its digest file {d} is missing; delete {f} and rerun to download it again")
            expected = d.read_text(encoding="utf-8").split()[0]
        actual = sha256_file(f)
        if actual != expected.lower():
            raise DownloadError(
                f"{f} changed after it was downloaded (SHA-256 {actual}, expected {expected.lower()}); "
                f"delete it and rerun to download the pinned file again"
            )
