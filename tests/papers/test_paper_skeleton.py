"""Every paper package has the same claims skeleton (docs/DEVELOPING.md, "How to add a paper"):

* ``claims.py``: ``CLAIMS``, a non-empty tuple of :class:`~dpgrid.core.claims.ClaimSpec` with unique ids (unique
  across papers too), holding the paper's privacy-audit row, and ``claims_job(job)``;
* ``claims_context.py``: ``ClaimsContext``, a dataclass whose fields are what the measures read, and
  ``claims_context(job) -> ClaimsContext``;
* every ``ctx.<name>`` the paper's measures read (``claims.py`` and its ``*measures.py`` modules) is a field of its
  ``ClaimsContext``: a measure reading a name the context does not have fails here, not in a run;
* every stage is registered in the descriptor: each script of ``workflow/papers/<paper>/scripts/`` runs one
  ``<what>_job(job)`` function of the paper's own package, from a module its descriptor lists in ``stages`` or from
  a role module (:data:`~dpgrid.core.papers.ROLE_MODULES`), and every listed stage is run by a script.
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
from dpgrid.core.papers import ROLE_MODULES, paper_descriptors, paper_names
from dpgrid.privacy.audit_table import privacy_audit_spec

PAPERS = paper_names()
REPO = Path(__file__).resolve().parents[2]
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


def _script_jobs(path: Path) -> list[tuple[str, str]]:
    """``(module, function)`` of every ``run_script(snakemake, <job>)`` call of a rule script, the job resolved through
    the script's ``from <module> import <name>`` statements (a module imported as a name, or a function)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {
        alias.asname or alias.name: (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }
    jobs = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "run_script"):
            continue
        job = node.args[1]
        if isinstance(job, ast.Attribute) and isinstance(job.value, ast.Name):  # module.function
            package, name = imported[job.value.id]
            jobs.append((f"{package}.{name}", job.attr))
        elif isinstance(job, ast.Name):  # a function imported by name
            jobs.append(imported[job.id])
        else:
            raise AssertionError(f"{path}: run_script's job is neither module.function nor an imported function")
    return jobs


def _stages_run(paper: str) -> dict[str, set[str]]:
    """``{module relative to the paper's package: {job functions}}`` the paper's rule scripts run."""
    prefix = f"dpgrid.papers.{paper}."
    run: dict[str, set[str]] = {}
    for path in sorted((REPO / "workflow" / "papers" / paper / "scripts").rglob("*.py")):
        jobs = _script_jobs(path)
        assert len(jobs) == 1, f"{path}: a rule script runs one job, found {jobs}"
        module, function = jobs[0]
        assert module.startswith(prefix), f"{path}: runs {module}.{function}, not a stage of {paper}"
        run.setdefault(module.removeprefix(prefix), set()).add(function)
    return run


@pytest.mark.parametrize("paper", PAPERS)
def test_every_stage_is_registered_in_the_descriptor(paper):
    descriptor = {d.name: d for d in paper_descriptors()}[paper]
    registered = set(descriptor.stages)
    assert len(registered) == len(descriptor.stages), f"{paper}: a stage listed twice"
    run = _stages_run(paper)
    roles = {m for m in run if m.rsplit(".", 1)[-1] in ROLE_MODULES}
    assert {"claims", "figures", "privacy_audit"} <= roles, f"{paper}: its scripts do not run every role module"
    assert set(run) - roles == registered, (
        f"{paper}: scripts run {sorted(set(run) - roles)}; DESCRIPTOR.stages lists {sorted(registered)}"
    )
    assert all("stages" in m.split(".") for m in registered), f"{paper}: a stage module outside stages: {registered}"
    for module, functions in run.items():
        loaded = _module(paper, module)
        for name in functions:
            job = getattr(loaded, name)
            assert name.endswith("_job") and list(inspect.signature(job).parameters) == ["job"], (
                f"dpgrid.papers.{paper}.{module}.{name}: a stage's job function is <what>_job(job)"
            )


def test_an_unregistered_stage_is_seen(tmp_path):
    """The script parser resolves both forms of a job, so a script running another module is seen above."""
    path = tmp_path / "s.py"
    path.write_text(
        "from dpgrid.core.pipeline import run_script\nfrom dpgrid.papers.x import jobs\n"
        "from dpgrid.papers.x.audit import audit_job\nrun_script(snakemake, jobs.a_job)\nrun_script(snakemake, audit_job)\n"
    )
    assert _script_jobs(path) == [("dpgrid.papers.x.jobs", "a_job"), ("dpgrid.papers.x.audit", "audit_job")]
