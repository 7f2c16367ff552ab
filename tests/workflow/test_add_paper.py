"""Adding a paper touches only its own folders and its config section (docs/DEVELOPING.md, "How to add a paper").

The paper ``newdp`` (one Gaussian release, one figure, one table, two claims and its privacy audit) is built from
the code blocks of docs/DEVELOPING.md, section "The files of a minimal paper": every block whose first line is
``# file: <path>`` is written to that path of a copy of the workflow (with its tests), and the ``# merge into:
config/config.yaml`` block is merged into the copy's config. No other file is edited by hand. Then:

* the DAG of ``all`` has the paper's jobs; a config that breaks its schema or its descriptor's check stops the
  workflow before any job;
* its targets build, its claims get their verdicts, its verdicts go into its own claims reference;
* the generated documents follow through their generator commands only (job counts, config/README.md);
* the paper passes the skeleton test (tests/papers/test_paper_skeleton.py), its own tests, the tests-layout and
  config-documentation tests, in the copy;
* weekly (``python -m pytest -m weekly``): the whole README test command passes in a copy of the whole repository
  with the paper added the same way (this module excepted: it would add the paper twice).
"""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dpgrid.core.artifact import embedded
from dpgrid.core.config import merge_config
from dpgrid.core.job_counts import parse_job_counts
from tests.helpers.repo import REPO, copy_workflow, snakemake_env

pytestmark = pytest.mark.filterwarnings("ignore")

PAPER = "newdp"
SECTION = "### The files of a minimal paper"
BLOCK = re.compile(r"^```(?:python|yaml|markdown)\n(# (file|merge into): (\S+)\n.*?)^```$", re.S | re.M)


def howto_files() -> tuple[dict[str, str], list[tuple[str, dict]]]:
    """The files of DEVELOPING.md's minimal paper ``{path: text}`` and its config merges ``[(path, mapping)]``."""
    text = (REPO / "docs" / "DEVELOPING.md").read_text(encoding="utf-8")
    assert SECTION in text, f"docs/DEVELOPING.md lost its section {SECTION!r}"
    section = text.split(SECTION, 1)[1].split("\n### ", 1)[0]
    files, merges = {}, []
    for body, kind, path in BLOCK.findall(section):
        content = body.split("\n", 1)[1]
        if kind == "file":
            assert path not in files, f"{path} twice in the how-to"
            files[path] = content
        else:
            merges.append((path, yaml.safe_load(content)))
    return files, merges


def _env(wd: Path) -> dict[str, str]:
    return snakemake_env(PYTHONPATH=f"{wd / 'src'}{':'}{wd}", MPLBACKEND="Agg")


def _run(wd: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], cwd=wd, capture_output=True, text=True, env=_env(wd), timeout=timeout
    )


def _snakemake(wd: Path, *args: str) -> subprocess.CompletedProcess:
    return _run(wd, "-m", "snakemake", *args)


def _add_paper(wd: Path) -> None:
    files, merges = howto_files()
    for path, content in files.items():
        target = wd / path
        assert not target.exists(), f"the how-to's {path} would overwrite a file of the workflow"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    for path, mapping in merges:
        assert path == "config/config.yaml", f"the how-to merges into {path}, not the config"
        config = wd / path
        config.write_text(yaml.safe_dump(merge_config(yaml.safe_load(config.read_text()), mapping), sort_keys=False))


@pytest.fixture(scope="module")
def paper_workflow(tmp_path_factory) -> Path:
    wd = copy_workflow(tmp_path_factory.mktemp("add_paper") / "wf")
    ignore = shutil.ignore_patterns("__pycache__", ".hypothesis")
    shutil.copytree(REPO / "tests", wd / "tests", ignore=ignore)
    for name in ("pyproject.toml", "README.md", "ARTIFACT.md", "CITATION.cff"):
        shutil.copy(REPO / name, wd / name)
    (wd / "config" / "README.md").write_text((REPO / "config" / "README.md").read_text())
    _add_paper(wd)
    return wd


def test_the_howto_holds_a_whole_paper_in_its_own_folders():
    files, merges = howto_files()
    # its folders only: its documentation page (with its statement register) is workflow/papers/<paper>/<paper>.md
    own = (f"src/dpgrid/papers/{PAPER}/", f"workflow/papers/{PAPER}/", f"tests/papers/{PAPER}/")
    assert files and all(p.startswith(own) for p in files), sorted(files)
    for part in ("claims.py", "claims_context.py", "descriptor.py", "figures.py", "privacy_audit.py"):
        assert f"src/dpgrid/papers/{PAPER}/{part}" in files
    assert [set(m) for _, m in merges] == [{PAPER, "privacy_audits"}]
    assert set(merges[0][1]["privacy_audits"]) == {PAPER}  # only its own key in the shared section


def test_the_dag_of_all_has_the_new_papers_jobs(paper_workflow):
    proc = _snakemake(paper_workflow, "-n", "--forceall", "--configfile", "config/quick.yaml")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    for rule in ("release", "figure", "claims", "report_captions", "privacy_audit"):
        assert f"{PAPER}_{rule}" in out, f"{PAPER}_{rule} not planned"


def test_the_new_papers_targets_build_and_its_claims_get_verdicts(paper_workflow):
    wd = paper_workflow
    targets = [f"results/quick/{PAPER}/{name}" for name in ("fig1.pdf", "fig1.png", "claims.csv")]
    proc = _snakemake(wd, *targets, "--cores", "1", "--configfile", "config/quick.yaml")
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = list(csv.DictReader((wd / f"results/quick/{PAPER}/claims.csv").open()))
    assert [(r["claim_id"], r["verdict"]) for r in rows] == [
        (f"{PAPER}-sigma", "reproduced"),
        (f"{PAPER}-fig1-spread", "reproduced"),
        (f"{PAPER}_privacy_audit", "reproduced"),
    ]
    assert (wd / f"results/quick/{PAPER}/fig1.png").stat().st_size > 1000
    assert len(list(csv.DictReader((wd / f"results/quick/{PAPER}/release.csv").open()))) == 100
    # its pinned verdicts go into its own folder (how-to step 6), beside the other papers' untouched files
    papers = wd / "workflow" / "papers"
    before = {f: f.read_bytes() for f in papers.glob("*/claims_reference.csv")}
    proc = _run(wd, "-m", "dpgrid.core.claims_reference", "update", f"results/quick/{PAPER}/claims.csv", str(papers))
    assert proc.returncode == 0, proc.stderr
    assert set(papers.glob("*/claims_reference.csv")) - set(before) == {papers / PAPER / "claims_reference.csv"}
    assert all(f.read_bytes() == text for f, text in before.items())


#: the how-to's generator commands (arguments of python), in order: the job counts embedded in README.md and
#: ARTIFACT.md, config/README.md, the references and the table of papers, the SLURM profile's resources
GENERATORS = [
    ("-m", "dpgrid.core.job_counts", "write", "benchmarks/job_counts.md"),
    *[
        ("-m", "dpgrid.core.artifact", "embed", "jobs", "benchmarks/job_counts.md", doc)
        for doc in ("README.md", "ARTIFACT.md")
    ],
    ("-m", "dpgrid.core.config_doc", "write", "config/README.md"),
    ("-m", "dpgrid.core.citation", "write", "CITATION.cff", "README.md"),
    ("workflow/profiles/slurm/job_overhead.py", "--write"),
]


@pytest.fixture(scope="module")
def regenerated(paper_workflow) -> Path:
    """The copy after the how-to's generator commands: the job counts embedded in README.md and ARTIFACT.md, and
    config/README.md (run once; the tests below read what they wrote)."""
    wd = paper_workflow
    for command in GENERATORS:
        proc = _run(wd, *command)
        assert proc.returncode == 0, proc.stderr
    return wd


def test_the_generated_documents_follow_through_their_commands(regenerated):
    """The job counts (README.md, ARTIFACT.md) and config/README.md change only by their generators."""
    wd = regenerated
    for document in ("README.md", "ARTIFACT.md"):
        new, old = (
            parse_job_counts(embedded(wd / document, "jobs")),
            parse_job_counts(embedded(REPO / document, "jobs")),
        )
        # the paper adds its release, figure, claims, audit and captions jobs to both configurations
        assert all(new[c] - old[c] == 5 for c in old), (old, new)
    assert f"### `{PAPER}`" in (wd / "config" / "README.md").read_text()


def test_the_new_paper_passes_the_skeleton_layout_and_its_own_tests(regenerated):
    wd = regenerated  # config/README.md regenerated first: the config-doc test reads it
    tests = [
        "tests/papers/test_paper_skeleton.py",
        f"tests/papers/{PAPER}",
        "tests/workflow/test_tests_layout.py",
        "tests/core/test_config_doc.py",
    ]
    proc = _run(wd, "-m", "pytest", "-q", "-o", "addopts=", "-p", "no:cacheprovider", *tests)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert f"[{PAPER}]" in _run(wd, "-m", "pytest", "-q", "-o", "addopts=", "--collect-only", tests[0]).stdout


@pytest.mark.pipeline
@pytest.mark.weekly
def test_the_whole_suite_passes_with_the_new_paper(tmp_path):
    """The README test command (``python -m pytest``: the fast suite) in a copy of the repository's files, after the
    how-to's files and generator commands (about 6 min on 2 cores)."""
    wd = tmp_path / "repo"
    # the tracked files and the new ones git does not ignore (a working tree under change)
    tracked = subprocess.run(
        ["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=REPO, capture_output=True, check=True
    ).stdout
    for name in tracked.decode().split("\0"):
        if name and (REPO / name).is_file():
            (wd / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, wd / name)
    _add_paper(wd)
    for command in GENERATORS:
        proc = _run(wd, *command)
        assert proc.returncode == 0, proc.stderr
    # how-to step 6: the paper's verdicts of the full configuration pinned in its folder
    proc = _snakemake(wd, f"results/{PAPER}/claims.csv", "--cores", "2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc = _run(wd, "-m", "dpgrid.core.claims_reference", "update", f"results/{PAPER}/claims.csv", "workflow/papers")
    assert proc.returncode == 0, proc.stderr
    this = Path(__file__).relative_to(REPO).as_posix()
    # ARTIFACT.md's claims index and the references come from one full run of every paper, its verdicts from the
    # full run over seeds (how-to step 6), which this test does not make (the weekly jobs check them)
    whole_run = "tests/core/test_claims_reference.py::test_artifact_md_indexes_the_reference_claims_with_their_verdicts_over_seeds"
    proc = _run(
        wd, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--ignore", this, "--deselect", whole_run, timeout=3600
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout.splitlines()[-1]


def test_the_new_papers_schema_and_checks_are_applied(paper_workflow):
    """Its section is validated (schema from its folder, cross-field check from its descriptor) before any job."""
    bad = paper_workflow / "bad.yaml"
    bad.write_text(f"{PAPER}:\n  n: 5\n")
    proc = _snakemake(paper_workflow, "-n", "--configfile", "config/quick.yaml", "bad.yaml")
    assert proc.returncode != 0
    assert f"{PAPER}.n = 5 must be at least 10" in proc.stdout + proc.stderr
    bad.write_text(f"{PAPER}:\n  unknown_key: 1\n")
    proc = _snakemake(paper_workflow, "-n", "--configfile", "config/quick.yaml", "bad.yaml")
    assert proc.returncode != 0
    assert "unknown_key" in proc.stdout + proc.stderr
