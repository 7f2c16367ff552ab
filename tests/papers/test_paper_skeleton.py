"""Every paper package has the same claims skeleton (docs/DEVELOPING.md, "How to add a paper"):

* ``claims.py``: ``CLAIMS``, a non-empty tuple of :class:`~dpgrid.core.claims.ClaimSpec` with unique ids (unique
  across papers too), holding the paper's privacy-audit row, and ``claims_job(job)``;
* ``claims_context.py``: ``ClaimsContext``, a dataclass whose fields are what the measures read, and
  ``claims_context(job) -> ClaimsContext``;
* every ``ctx.<name>`` the paper's measures read (``claims.py`` and its ``*measures.py`` modules) is a field of its
  ``ClaimsContext``: a measure reading a name the context does not have fails here, not in a run.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
from pathlib import Path

import pytest

import dpgrid.papers as papers_package
from dpgrid.core.claims import ClaimSpec
from dpgrid.core.papers import paper_names
from dpgrid.privacy.audit_table import privacy_audit_spec

PAPERS = paper_names()
#: the modules of a paper whose functions take the paper's claims context as ``ctx``
MEASURE_MODULES = ("claims.py", "*measures.py")


def _module(paper: str, name: str):
    return importlib.import_module(f"dpgrid.papers.{paper}.{name}")


def _ctx_reads(path: Path) -> set[str]:
    """Names ``X`` of every ``ctx.X`` read in a module (attribute loads on a variable named ``ctx``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "ctx"
        and isinstance(node.ctx, ast.Load)
    }


def test_the_papers_are_registered():
    assert set(PAPERS) >= {"classdp", "spdp", "dpkmeans", "blowfish"}


@pytest.mark.parametrize("paper", PAPERS)
def test_claims_is_a_tuple_of_specs_with_unique_ids_and_the_audit_row(paper):
    claims = _module(paper, "claims")
    specs = claims.CLAIMS
    assert isinstance(specs, tuple) and specs and all(isinstance(s, ClaimSpec) for s in specs)
    ids = [s.claim_id for s in specs]
    assert len(ids) == len(set(ids)), f"{paper}: claim ids listed twice"
    audit = privacy_audit_spec(paper, claims.PRIVACY_STATEMENT)
    assert [(s.claim_id, s.target) for s in specs if s.claim_id == audit.claim_id] == [(audit.claim_id, audit.target)]
    assert callable(claims.claims_job) and list(inspect.signature(claims.claims_job).parameters) == ["job"]


def test_claim_ids_are_unique_across_papers():
    ids = [s.claim_id for paper in PAPERS for s in _module(paper, "claims").CLAIMS]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("paper", PAPERS)
def test_claims_context_is_a_typed_dataclass_built_from_the_job(paper):
    module = _module(paper, "claims_context")
    context_type = module.ClaimsContext
    assert dataclasses.is_dataclass(context_type)
    fields = {f.name: f for f in dataclasses.fields(context_type)}
    assert "privacy_audits" in fields
    assert all(f.type not in ("", None) for f in fields.values())
    builder = module.claims_context
    assert list(inspect.signature(builder).parameters) == ["job"]
    assert inspect.signature(builder).return_annotation in ("ClaimsContext", context_type)
    assert _module(paper, "claims").claims_context is builder  # the claims job builds the context with it


@pytest.mark.parametrize("paper", PAPERS)
def test_the_measures_read_only_fields_of_the_context(paper):
    fields = {f.name for f in dataclasses.fields(_module(paper, "claims_context").ClaimsContext)}
    package = Path(papers_package.__file__).parent / paper
    paths = sorted({p for pattern in MEASURE_MODULES for p in package.glob(pattern)})
    assert package / "claims.py" in paths
    for path in paths:
        unknown = _ctx_reads(path) - fields
        assert not unknown, f"{path}: reads ctx.{sorted(unknown)}, not fields of {paper}'s ClaimsContext"


def test_a_read_of_an_unknown_field_is_seen(tmp_path):
    """The check above finds a measure's read of a name (and ignores writes and other variables)."""
    path = tmp_path / "m.py"
    path.write_text("def m(ctx, other):\n    other.x = ctx.known + ctx.missing\n    ctx.written = 1\n")
    assert _ctx_reads(path) == {"known", "missing"}
