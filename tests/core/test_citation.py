"""CITATION.cff's references and README.md's table of papers come from the papers' descriptors
(dpgrid.core.citation): the committed files are current, and a new paper's descriptor adds its rows."""

from __future__ import annotations

import shutil

import pytest
import yaml

from dpgrid.core.citation import CitationError, main, papers_table, references_yaml
from dpgrid.core.papers import PaperDescriptor, paper_descriptors
from tests.helpers.repo import REPO


def test_committed_citation_and_readme_are_current():
    assert main(["check", str(REPO / "CITATION.cff"), str(REPO / "README.md")]) == 0


def _paper(name, n_authors, **extra):
    authors = [(f"Family{i}", f"Given{i}") for i in range(n_authors)]
    return PaperDescriptor(
        name=name,
        order=99,
        title=name,
        rules_files={name: name},
        reference={"title": f"On {name}", "authors": authors, **extra},
        reproduces="Fig. 1",
    )


def test_a_new_paper_gets_its_reference_and_row(tmp_path):
    papers = [*paper_descriptors(), _paper("newdp", 7, year=2024, doi="10.1/x")]
    refs = yaml.safe_load(references_yaml(papers))["references"]
    assert [r["notes"] for r in refs] == [f"dpgrid short name: {d.name}" for d in papers]
    assert refs[-1]["year"] == 2024 and len(refs[-1]["authors"]) == 7
    rows = papers_table(papers).splitlines()
    assert rows[-1] == "| `newdp` | Family0, Family1, Family2, Family3, Family4 et al.: *On newdp* | Fig. 1 |"
    assert papers_table([_paper("two", 2)]).splitlines()[-1].startswith("| `two` | Family0, Family1: *On two*")
    # write rewrites only the generated parts of copies of the committed files
    for name in ("CITATION.cff", "README.md"):
        shutil.copy(REPO / name, tmp_path / name)
    assert main(["write", str(tmp_path / "CITATION.cff"), str(tmp_path / "README.md")]) == 0
    for name in ("CITATION.cff", "README.md"):
        assert (tmp_path / name).read_bytes() == (REPO / name).read_bytes()


def test_a_paper_without_reference_is_named():
    bare = PaperDescriptor(name="bare", order=98, title="bare", rules_files={"bare": "bare"})
    with pytest.raises(CitationError, match="dpgrid.papers.bare.descriptor"):
        references_yaml([bare])
