"""The one plotting style (dpgrid.figures.style): save_figure writes a PDF and a PNG, byte-identical from the
same drawing, and refuses any other name."""

import hashlib

import pytest

from dpgrid.figures import data_statement, figure, place_legend, save_figure


def _draw(path):
    fig, ax = figure()
    ax.plot([0, 1, 2], [1, 0, 1], label="x")
    place_legend(ax)
    data_statement(fig, "Data: three points.")
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
