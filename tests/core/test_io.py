import hashlib
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpgrid.core.io import atomic_path, read_json, save_npz, write_json, write_table, write_text
from tests.helpers.repo import REPO


def test_atomic_path_leaves_nothing_on_failure(tmp_path):
    dest = tmp_path / "sub" / "out.csv"
    with pytest.raises(RuntimeError):
        with atomic_path(dest) as tmp:
            tmp.write_text("partial")
            raise RuntimeError("boom")
    assert not dest.exists()
    assert list(dest.parent.iterdir()) == []


def test_atomic_path_keeps_old_file_on_failure(tmp_path):
    dest = tmp_path / "out.txt"
    write_text("old\n", dest)
    with pytest.raises(ValueError):
        with atomic_path(dest) as tmp:
            tmp.write_text("new")
            raise ValueError
    assert dest.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_atomic_temp_keeps_suffix(tmp_path):
    with atomic_path(tmp_path / "fig.pdf") as tmp:
        assert tmp.suffix == ".pdf" and tmp.parent == tmp_path
        tmp.write_bytes(b"x")
    assert (tmp_path / "fig.pdf").read_bytes() == b"x"


def test_completed_write_removes_what_a_killed_writer_of_the_same_file_left(tmp_path):
    """A writer killed without cleanup (SIGKILL) leaves its temporary file; the next complete write of the same path
    removes it, and only it: temporaries of other outputs (one being written now, or of ``fig2.x.pdf``) stay."""
    import tempfile

    from dpgrid.core.io import _temporary_affixes

    def leftover(stem, suffix):  # a name atomic_path's mkstemp gives for <stem><suffix>
        prefix, tmp_suffix = _temporary_affixes(tmp_path / f"{stem}{suffix}")
        fd, name = tempfile.mkstemp(prefix=prefix, suffix=tmp_suffix, dir=tmp_path)
        os.close(fd)
        return Path(name)

    stale = [leftover("fig2", ".pdf"), leftover("fig2", ".pdf")]
    others = [leftover("fig2", ".png"), leftover("fig2.x", ".pdf"), leftover("fig", ".pdf"), leftover("xfig2", ".pdf")]
    others.append(tmp_path / ".fig2.abcdefgh.tmp.pdf.bak")
    others[-1].write_text("not a temporary of fig2.pdf")
    write_text("figure", tmp_path / "fig2.pdf")
    assert (tmp_path / "fig2.pdf").read_text() == "figure"
    assert not any(f.exists() for f in stale)
    assert all(f.exists() for f in others)


def test_write_table_is_byte_deterministic(tmp_path):
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"a": rng.normal(size=50), "b": np.arange(50)})
    write_table(df, tmp_path / "1.csv")
    write_table(df.copy(), tmp_path / "2.csv")
    h = [hashlib.sha256((tmp_path / f"{i}.csv").read_bytes()).hexdigest() for i in (1, 2)]
    assert h[0] == h[1]
    back = pd.read_csv(tmp_path / "1.csv")
    np.testing.assert_allclose(back["a"], df["a"], rtol=1e-11)
    assert b"\r\n" not in (tmp_path / "1.csv").read_bytes()


def test_json_roundtrip_numpy(tmp_path):
    write_json({"b": np.float64(1.5), "a": np.arange(3)}, tmp_path / "x.json")
    assert read_json(tmp_path / "x.json") == {"a": [0, 1, 2], "b": 1.5}
    assert (tmp_path / "x.json").read_text().index('"a"') < (tmp_path / "x.json").read_text().index('"b"')


def test_save_npz(tmp_path):
    save_npz(tmp_path / "a.npz", x=np.eye(2))
    with np.load(tmp_path / "a.npz") as z:
        np.testing.assert_array_equal(z["x"], np.eye(2))


def test_atomic_output_has_ordinary_file_mode(tmp_path):
    import os

    write_text("x", tmp_path / "m.txt")
    mask = os.umask(0)
    os.umask(mask)
    assert (tmp_path / "m.txt").stat().st_mode & 0o777 == 0o666 & ~mask


def test_truncated_npz_input_is_named_with_how_to_remake_it(tmp_path, capfd):
    """A job reading a truncated .npz intermediate (np.load raises BadZipFile without a file name): the failure
    line names the file, says it is damaged and gives the command that reruns the job making it. A complete
    archive is not reported."""
    import logging

    from dpgrid.core.io import damaged_npz
    from dpgrid.core.pipeline import run_script

    good, cut = tmp_path / "model.npz", tmp_path / "mechanisms.npz"
    save_npz(good, a=np.arange(1000.0))
    save_npz(cut, a=np.arange(1000.0))
    data = cut.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    assert damaged_npz([good, cut, tmp_path / "table.csv"]).keys() == {str(cut)}
    repo = REPO

    class Smk:
        log, output, rule = [str(tmp_path / "r.log")], [str(tmp_path / "o.csv")], "classdp_no_noise"
        input, params, wildcards, threads, resources = [str(good), str(cut)], [], [], 1, {}
        config = {}
        scriptdir = str(repo / "workflow" / "scripts" / "report")

    def job(j):
        for f in j.input:
            with np.load(f, allow_pickle=False) as z:
                z["a"]

    with pytest.raises(SystemExit):
        run_script(Smk(), job)
    for h in list(logging.getLogger().handlers):
        h.close()
        logging.getLogger().removeHandler(h)
    err = capfd.readouterr().err
    assert "rule classdp_no_noise failed: BadZipFile" in err
    assert f"input {cut} is damaged (" in err and f"snakemake --cores 1 --force {cut}" in err
    assert f"input {good} is damaged" not in err
