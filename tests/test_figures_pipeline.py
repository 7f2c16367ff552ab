import hashlib
import logging
from pathlib import Path

import pytest

from dpgrid.figures import figure, save_figure
from dpgrid.pipeline import StalePackageError, check_package_location, run_script
from conftest import REPO


def _draw(path):
    fig, ax = figure()
    ax.plot([0, 1, 2], [1, 0, 1], label="x")
    ax.legend()
    save_figure(fig, path)


def test_save_figure_writes_pdf_and_png_reproducibly(tmp_path):
    _draw(tmp_path / "a" / "fig.pdf")
    _draw(tmp_path / "b" / "fig.pdf")
    for suffix in (".pdf", ".png"):
        a, b = (tmp_path / d / f"fig{suffix}" for d in "ab")
        assert a.stat().st_size > 500
        assert hashlib.sha256(a.read_bytes()).digest() == hashlib.sha256(b.read_bytes()).digest()
    assert (tmp_path / "a" / "fig.pdf").read_bytes().startswith(b"%PDF")
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["fig.pdf", "fig.png"]


def test_save_figure_rejects_non_pdf(tmp_path):
    fig, _ = figure()
    with pytest.raises(ValueError, match=".pdf"):
        save_figure(fig, tmp_path / "fig.png")


def test_package_location_check(tmp_path):
    check_package_location(REPO / "workflow" / "scripts" / "report")  # this checkout: fine
    other = tmp_path / "other"
    (other / "workflow" / "scripts" / "x").mkdir(parents=True)
    (other / "Snakefile").write_text("")
    with pytest.raises(StalePackageError, match="pip install -e"):
        check_package_location(other / "workflow" / "scripts" / "x")


class FakeSmk:
    def __init__(self, log, out):
        self.log, self.output, self.rule = [str(log)], [str(out)], "fake_rule"
        self.scriptdir = str(REPO / "workflow" / "scripts" / "report")


def test_run_script_logs_failure_to_rule_log(tmp_path):
    smk = FakeSmk(tmp_path / "r.log", tmp_path / "o.txt")

    def fails(_):
        raise ValueError("bad value 42 in field 'x'")

    with pytest.raises(ValueError):
        run_script(smk, fails)
    logging.shutdown()
    text = (tmp_path / "r.log").read_text()
    assert "fake_rule failed" in text and "bad value 42" in text
