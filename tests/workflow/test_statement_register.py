"""The statement register of each paper (workflow/papers/<paper>/<paper>.md, "Statement register") and the figures' claim rows.

* every paper figure target (a target named ``fig<N>`` in the paper's caption registry,
  ``workflow/papers/<paper>/targets.yaml``, which every registered target must have) feeds at least one claim row of
  the paper's spec tables (the ``ClaimSpec`` records of its ``claims`` modules, found by walking the package);
* every register row names claim rows that exist, or says "not checked:" and why;
* every paper figure is in its register, and every claim row of a paper figure is named in the register.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest
import yaml

from dpgrid.core.claims import ClaimSpec
from dpgrid.core.papers import paper_names
from tests.helpers.repo import REPO

PAPER_FIGURE = re.compile(r"fig\d+")


def paper_figures(paper: str) -> list[str]:
    targets = yaml.safe_load((REPO / "workflow" / "papers" / paper / "targets.yaml").read_text())["targets"]
    return [t for t in targets if PAPER_FIGURE.fullmatch(t)]


def _specs_in(value) -> list[ClaimSpec]:
    if isinstance(value, ClaimSpec):
        return [value]
    if isinstance(value, (tuple, list)):
        return [s for v in value for s in _specs_in(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _specs_in(v)]
    return []


def claim_specs(paper: str) -> dict[str, ClaimSpec]:
    """Every ClaimSpec of the paper's ``claims`` modules (module-level tables), by claim id."""
    pkg = importlib.import_module(f"dpgrid.papers.{paper}")
    names = [f"dpgrid.papers.{paper}.claims"] + [
        m.name
        for m in pkgutil.walk_packages(pkg.__path__, prefix=f"dpgrid.papers.{paper}.")
        if m.name.rsplit(".", 1)[-1] == "claims"
    ]
    specs: dict[str, ClaimSpec] = {}
    for name in dict.fromkeys(names):
        module = importlib.import_module(name)
        for value in vars(module).values():
            for spec in _specs_in(value):
                specs[spec.claim_id] = spec
    return specs


def register_rows(paper: str) -> list[list[str]]:
    text = (REPO / "workflow" / "papers" / paper / f"{paper}.md").read_text(encoding="utf-8")
    assert "## Statement register" in text, f"workflow/papers/{paper}/{paper}.md has no statement register"
    section = text.split("## Statement register", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| ") or line.startswith("| figure |"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        rows.append(cells)
    return rows


PAPERS = paper_names()


def test_every_paper_has_figures_in_its_registry():
    assert {p: bool(paper_figures(p)) for p in PAPERS} == dict.fromkeys(PAPERS, True)


@pytest.mark.parametrize("paper", PAPERS)
def test_every_paper_figure_feeds_a_claim_row(paper):
    fed = {s.target for s in claim_specs(paper).values()}
    missing = [f for f in paper_figures(paper) if f not in fed]
    assert not missing, f"{paper}: paper figures without a claim row: {missing}"


@pytest.mark.parametrize("paper", PAPERS)
def test_register_rows_name_existing_claims_or_say_why_not(paper):
    specs = claim_specs(paper)
    rows = register_rows(paper)
    assert rows, f"workflow/papers/{paper}/{paper}.md: empty statement register"
    for cells in rows:
        assert len(cells) == 4, cells
        figure, _, quote, verdict = cells
        assert quote, cells
        named = re.findall(r"`([^`]+)`", verdict)
        if verdict.startswith("not checked"):
            assert len(verdict.split(":", 1)[-1].strip()) >= 20, f"{paper}: say why not: {cells}"
            continue
        assert named, f"{paper}: a register row names no claim row and does not say 'not checked': {cells}"
        unknown = [n for n in named if n not in specs]
        assert not unknown, f"workflow/papers/{paper}/{paper}.md names claim rows that do not exist: {unknown}"


@pytest.mark.parametrize("paper", PAPERS)
def test_register_covers_every_paper_figure_and_its_claim_rows(paper):
    rows = register_rows(paper)
    figures = {c[0] for c in rows}
    assert set(paper_figures(paper)) <= figures, f"{paper}: figures missing from the register"
    named = {n for c in rows for n in re.findall(r"`([^`]+)`", c[3])}
    unnamed = [
        s.claim_id for s in claim_specs(paper).values() if PAPER_FIGURE.fullmatch(s.target) and s.claim_id not in named
    ]
    assert not unnamed, (
        f"workflow/papers/{paper}/{paper}.md: claim rows of paper figures not in the register: {unnamed}"
    )


@pytest.mark.parametrize("paper", PAPERS)
def test_qualitative_rows_quote_the_sentence_they_check(paper):
    """A row compared with a text (or a run-computed reference) is 'reproduced' only with a printed basis: every
    such spec of a paper figure quotes the paper's sentence."""
    missing = [
        s.claim_id
        for s in claim_specs(paper).values()
        if PAPER_FIGURE.fullmatch(s.target) and not s.printed and not s.claim_id.endswith("share_outside_band")
    ]
    assert not missing, f"{paper}: rows of paper figures with nothing printed to compare with: {missing}"
