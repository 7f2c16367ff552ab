"""Tests of dpgrid.data.download against a local HTTP server (127.0.0.1, port chosen by the OS)."""

import hashlib
import http.server
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpgrid.data.download import (
    MIRROR_ENV,
    DownloadError,
    fetch,
    fetch_archive_member,
    fetch_file_set,
    mirror_root,
    sha256_file,
)
from tests.helpers.formats import zip_bytes
from tests.helpers.repo import REPO

PAYLOAD = bytes(range(256)) * 4096  # 1 MiB
DIGEST = hashlib.sha256(PAYLOAD).hexdigest()
SHARED = REPO.parent / "shared" / "data"


ZIP = zip_bytes("data.txt", b"a;b\n1;2\n")


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):  # keep test output quiet
        pass

    def do_GET(self):
        if self.path == "/ok.bin":
            self._send(PAYLOAD)
        elif self.path == "/archive.zip":
            self._send(ZIP)
        elif self.path.startswith("/set/"):
            self._send(self.path.encode())
        elif self.path == "/truncated.bin":
            # announce the full size, send half, close the connection
            self.send_response(200)
            self.send_header("Content-Length", str(len(PAYLOAD)))
            self.end_headers()
            self.wfile.write(PAYLOAD[: len(PAYLOAD) // 2])
            self.wfile.flush()
            self.close_connection = True
        else:
            self.send_error(404, "Not Found")

    def _send(self, body: bytes):
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _leftovers(folder: Path):
    return sorted(p.name for p in folder.iterdir())


def test_success_writes_verified_file(server, tmp_path):
    dest = tmp_path / "sub" / "ok.bin"
    assert fetch(f"{server}/ok.bin", DIGEST, dest, size=len(PAYLOAD)) == dest
    assert dest.read_bytes() == PAYLOAD
    assert _leftovers(dest.parent) == ["ok.bin"]  # no temp file left


def test_http_404_writes_nothing(server, tmp_path):
    dest = tmp_path / "missing.bin"
    with pytest.raises(DownloadError, match=r"missing\.bin: HTTP error 404") as e:
        fetch(f"{server}/missing.bin", DIGEST, dest)
    assert str(dest) in str(e.value)
    assert _leftovers(tmp_path) == []


def test_truncated_body_writes_nothing(server, tmp_path):
    dest = tmp_path / "t.bin"
    with pytest.raises(DownloadError, match=r"truncated\.bin: (truncated body|connection broken)") as e:
        fetch(f"{server}/truncated.bin", DIGEST, dest)
    assert str(dest) in str(e.value)
    assert _leftovers(tmp_path) == []


def test_checksum_mismatch_names_both_digests_and_writes_nothing(server, tmp_path):
    dest = tmp_path / "ok.bin"
    wrong = "0" * 64
    with pytest.raises(DownloadError, match="checksum mismatch") as e:
        fetch(f"{server}/ok.bin", wrong, dest)
    msg = str(e.value)
    assert wrong in msg and DIGEST in msg and f"{server}/ok.bin" in msg and str(dest) in msg
    assert _leftovers(tmp_path) == []


def test_checksum_mismatch_keeps_an_existing_good_file(server, tmp_path):
    dest = tmp_path / "ok.bin"
    dest.write_bytes(b"previous")
    with pytest.raises(DownloadError):
        fetch(f"{server}/ok.bin", "f" * 64, dest)
    assert dest.read_bytes() == b"previous"


def test_pinned_size_mismatch(server, tmp_path):
    with pytest.raises(DownloadError, match="pinned"):
        fetch(f"{server}/ok.bin", DIGEST, tmp_path / "x.bin", size=len(PAYLOAD) + 1)
    assert _leftovers(tmp_path) == []


def test_unpinned_download_is_refused_with_actual_digest(server, tmp_path):
    with pytest.raises(DownloadError, match=f"no pinned SHA-256.*{DIGEST}"):
        fetch(f"{server}/ok.bin", None, tmp_path / "x.bin")
    assert _leftovers(tmp_path) == []


def test_mirror_copy_success_and_mismatch(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "ds").mkdir(parents=True)
    (mirror / "ds" / "file.bin").write_bytes(PAYLOAD)
    out = tmp_path / "out"
    # the URL is unreachable: mirror mode never touches the network
    dest = fetch(
        "http://127.0.0.1:9/never",
        "1" * 64,
        out / "file.bin",
        mirror=mirror,
        mirror_path="ds/file.bin",
        mirror_sha256=DIGEST,
    )
    assert dest.read_bytes() == PAYLOAD
    with pytest.raises(DownloadError, match="checksum mismatch") as e:
        fetch(
            "http://127.0.0.1:9/never",
            DIGEST,
            out / "other.bin",
            mirror=mirror,
            mirror_path="ds/file.bin",
            mirror_sha256="2" * 64,
        )
    assert "2" * 64 in str(e.value) and DIGEST in str(e.value) and "ds/file.bin" in str(e.value)
    with pytest.raises(DownloadError, match="not found"):
        fetch("http://127.0.0.1:9/never", DIGEST, out / "absent.bin", mirror=mirror, mirror_path="ds/absent.bin")
    assert _leftovers(out) == ["file.bin"]


def test_mirror_root_env_wins_and_relative_is_cwd(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(MIRROR_ENV, raising=False)
    assert mirror_root(None) is None
    assert mirror_root("m1") == tmp_path / "m1"
    monkeypatch.setenv(MIRROR_ENV, "m2")
    assert mirror_root("m1") == tmp_path / "m2"
    monkeypatch.setenv(MIRROR_ENV, "")
    assert mirror_root("m1") == tmp_path / "m1"


def test_archive_member_download_and_bad_member(server, tmp_path):
    spec = {
        "url": f"{server}/archive.zip",
        "sha256": hashlib.sha256(ZIP).hexdigest(),
        "size": len(ZIP),
        "member": "data.txt",
        "mirror": {"path": "x/data.txt", "content": "member", "sha256": "3" * 64},
    }
    dest = fetch_archive_member(spec, tmp_path / "data.txt", mirror=None)
    assert dest.read_text() == "a;b\n1;2\n"
    assert _leftovers(tmp_path) == ["data.txt", "data.txt.sha256"]  # the zip is removed; the digest is recorded
    spec["member"] = "other.txt"
    with pytest.raises(DownloadError, match="member 'other.txt' not found"):
        fetch_archive_member(spec, tmp_path / "other.txt", mirror=None)
    assert _leftovers(tmp_path) == ["data.txt", "data.txt.sha256"]  # nothing of the failed member


def test_archive_member_from_mirror_member_file(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "x").mkdir(parents=True)
    (mirror / "x" / "excerpt.txt").write_bytes(b"head\n")
    spec = {
        "url": "http://127.0.0.1:9/never.zip",
        "sha256": None,
        "size": None,
        "member": "data.txt",
        "mirror": {"path": "x/excerpt.txt", "content": "member", "sha256": hashlib.sha256(b"head\n").hexdigest()},
    }
    dest = fetch_archive_member(spec, tmp_path / "out" / "data.txt", mirror=mirror)
    assert dest.read_bytes() == b"head\n"


def test_file_set_is_all_or_nothing(server, tmp_path):
    files = {
        "a/one.dss": hashlib.sha256(b"/set/a/one.dss").hexdigest(),
        "two.dss": hashlib.sha256(b"/set/two.dss").hexdigest(),
    }
    got = fetch_file_set(f"{server}/set", files, tmp_path / "ok", mirror=None, mirror_dir="unused")
    assert [p.read_bytes() for p in got] == [b"/set/a/one.dss", b"/set/two.dss"]
    files["two.dss"] = "4" * 64
    with pytest.raises(DownloadError, match="checksum mismatch"):
        fetch_file_set(f"{server}/set", files, tmp_path / "bad", mirror=None, mirror_dir="unused")
    assert not (tmp_path / "bad" / "a" / "one.dss").exists()
    assert not (tmp_path / "bad" / "two.dss").exists()


def test_shared_mirror_ieee123_matches_pinned_config(tmp_path):
    import yaml

    if not (SHARED / "ieee123" / "123Bus" / "IEEE123Master.dss").is_file():
        pytest.skip("../shared/data mirror not present")
    cfg = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    spec = cfg["data"]["downloads"]["ieee123"]
    got = fetch_file_set(spec["base_url"], spec["files"], tmp_path, mirror=SHARED, mirror_dir=spec["mirror_dir"])
    assert (tmp_path / "123Bus" / "IEEE123Master.dss").is_file() and (tmp_path / "IEEELineCodes.DSS").is_file()
    assert all(sha256_file(p) == spec["files"][str(p.relative_to(tmp_path))] for p in got)
    uci = cfg["data"]["downloads"]["uci_household"]["mirror"]
    assert sha256_file(SHARED / uci["path"]) == uci["sha256"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(umask=st.sampled_from([0o002, 0o022, 0o027, 0o077, 0o007, 0o000]) | st.integers(0, 0o777))
def test_downloaded_files_get_the_mode_of_every_other_output(server, tmp_path_factory, umask):
    """Downloads, mirror copies, extracted archive members and file sets get the mode of an atomic write
    (dpgrid.core.io) under the same umask, 0666 less the umask; never mkstemp's 0600."""
    import stat

    from dpgrid.core import io

    d = tmp_path_factory.mktemp("modes")
    mirror = d / "mirror"
    (mirror / "x").mkdir(parents=True)
    (mirror / "x" / "excerpt.txt").write_bytes(b"head\n")
    spec = {
        "url": f"{server}/archive.zip",
        "sha256": hashlib.sha256(ZIP).hexdigest(),
        "size": None,
        "member": "data.txt",
        "mirror": {"path": "x/excerpt.txt", "content": "member", "sha256": hashlib.sha256(b"head\n").hexdigest()},
    }
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(io, "_UMASK", umask)
        io.write_text("x", d / "atomic.txt")
        files = [
            fetch(f"{server}/ok.bin", DIGEST, d / "dl" / "ok.bin"),
            fetch(
                "http://127.0.0.1:9/never",
                None,
                d / "mc" / "e.txt",
                mirror=mirror,
                mirror_path="x/excerpt.txt",
                mirror_sha256=spec["mirror"]["sha256"],
            ),
            fetch_archive_member(spec, d / "zip" / "data.txt", mirror=None),
            fetch_archive_member(spec, d / "mem" / "data.txt", mirror=mirror),
            *fetch_file_set(
                f"{server}/set",
                {"a/one.dss": hashlib.sha256(b"/set/a/one.dss").hexdigest()},
                d / "set",
                mirror=None,
                mirror_dir="unused",
            ),
        ]
    want = stat.S_IMODE((d / "atomic.txt").stat().st_mode)
    assert want == 0o666 & ~umask
    assert {str(f): stat.S_IMODE(f.stat().st_mode) for f in files} == {str(f): want for f in files}
