"""The repository meets the conventions of its ecosystem: the Snakemake workflow catalog's layout (workflow/Snakefile,
config/README.md, .snakemake-workflow-catalog.yml), a license file matching pyproject's, a citation file that
cites the four papers, and the top-level Snakefile still planning the same workflow."""

from __future__ import annotations

import tomllib

import pytest
import yaml

from dpgrid.core.papers import paper_descriptors
from tests.helpers.repo import REPO
from tests.helpers.workflow_dag import plan


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def test_license_file_is_the_license_pyproject_declares():
    declared = _pyproject()["project"]["license"]["text"]
    assert declared == "MIT"
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License")
    assert "Permission is hereby granted, free of charge" in text


def test_citation_file_cites_the_software_and_the_four_papers():
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text())
    project = _pyproject()["project"]
    assert cff["cff-version"] == "1.2.0"
    assert cff["type"] == "software"
    assert cff["version"] == project["version"]
    assert cff["license"] == project["license"]["text"]
    assert cff["authors"] and cff["message"] and cff["title"].startswith(project["name"])
    notes = {ref["notes"].rsplit(": ", 1)[1]: ref for ref in cff["references"]}
    assert set(notes) == {d.name for d in paper_descriptors()}
    papers_readme = REPO.parent / "shared" / "papers" / "README.md"
    for name, ref in notes.items():
        assert ref["type"] == "article" and ref["authors"], name
        if papers_readme.is_file():  # the papers' own titles, as the reading notes name them
            assert f"*{ref['title']}*" in papers_readme.read_text(), (name, ref["title"])
        # the first author is the one the README's table of papers names first
        first = ref["authors"][0]["family-names"]
        row = next(line for line in (REPO / "README.md").read_text().splitlines() if line.startswith(f"| `{name}` |"))
        assert row.split("|")[2].strip().startswith(first), (name, first)


def test_catalog_file_describes_the_usage():
    spec = yaml.safe_load((REPO / ".snakemake-workflow-catalog.yml").read_text())
    usage = spec["usage"]
    assert set(usage) <= {"mandatory-flags", "software-stack-deployment", "report"}
    assert usage["report"] is True
    assert set(usage["software-stack-deployment"]) == {"conda", "singularity", "singularity+conda"}
    assert isinstance(usage["mandatory-flags"]["desc"], str) and usage["mandatory-flags"]["desc"]
    # the catalog's layout
    assert (REPO / "workflow" / "Snakefile").is_file()
    assert (REPO / "config" / "README.md").is_file() and (REPO / "config" / "config.yaml").is_file()


def test_workflow_snakefile_names_every_path_relative_to_itself_or_the_repository():
    """workflow/Snakefile is the main file; the rules files take the repository's root from their own place (REPO),
    never from workflow.basedir, which depends on the entry point."""
    for path in [REPO / "workflow" / "Snakefile", *(REPO / "workflow").rglob("*.smk")]:
        code = [line.split("#", 1)[0] for line in path.read_text().splitlines()]
        assert not [line for line in code if "workflow.basedir" in line], path


@pytest.mark.parametrize("configfiles", [["config/quick.yaml"], []], ids=["quick", "full"])
def test_both_entry_points_plan_the_same_jobs(configfiles):
    """`snakemake` (top-level Snakefile, which includes workflow/Snakefile) and `snakemake -s workflow/Snakefile`
    plan the same jobs with the same params, inputs, outputs and rules files: every relative path resolves the
    same from both; and `all` is the default target of both."""
    top = plan(REPO, configfiles=configfiles)
    inner = plan(REPO, configfiles=configfiles, snakefile="workflow/Snakefile")
    assert top == inner
    assert any(key[0] == "all" for key in top)


def test_rules_files_are_snakefmt_clean_and_lint_checks_it():
    """snakefmt (pinned exactly in the test extra, like ruff) leaves every rules file as it is; CI's lint runs it."""
    import shutil
    import subprocess

    extra = _pyproject()["project"]["optional-dependencies"]["test"]
    assert any(req.startswith("snakefmt==") for req in extra), "snakefmt must be pinned exactly in the test extra"
    assert "snakefmt --check ." in (REPO / ".ci" / "step_lint").read_text()
    exe = shutil.which("snakefmt")
    assert exe, "snakefmt (test extra) is not installed"
    done = subprocess.run([exe, "--check", "."], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    # it checks the entry points and the rules files, not only one of them
    skip = {".venv", ".snakemake", ".git", "results", "resources", "logs"}
    rules_files = [
        p
        for p in REPO.rglob("*")
        if (p.name == "Snakefile" or p.suffix == ".smk") and not skip & set(p.relative_to(REPO).parts)
    ]
    assert {REPO / "Snakefile", REPO / "workflow" / "Snakefile"} <= set(rules_files)
    assert f"All {len(rules_files)} file(s) would be left unchanged" in done.stdout + done.stderr, done.stderr
