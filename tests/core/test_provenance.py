"""Code provenance: a job's code hash covers exactly the dpgrid modules its script can import."""

import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from dpgrid.core.provenance import ProvenanceError, code_hash, module_closure
from tests.helpers.repo import REPO, snakemake_env


def _copy_src(tmp_path):
    shutil.copytree(REPO / "src" / "dpgrid", tmp_path / "src" / "dpgrid", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "src" / "dpgrid"


def test_closure_follows_imports_transitively_including_function_level_ones(tmp_path):
    pkg = _copy_src(tmp_path)
    script = tmp_path / "s.py"
    script.write_text("from dpgrid.papers.spdp import figures\nfrom dpgrid.core.pipeline import run_script\n")
    files = {p.relative_to(pkg).as_posix() for p in module_closure(script, pkg)}
    # the figure module, what it imports (style -> io), every package __init__ on the way
    assert {
        "papers/spdp/figures.py",
        "papers/spdp/paper.py",
        "figures/style.py",
        "figures/__init__.py",
        "core/io.py",
        "core/__init__.py",
        "papers/__init__.py",
        "papers/spdp/__init__.py",
        "__init__.py",
        "core/pipeline.py",
    } <= files
    # ... and not the jobs of the same paper (a plotting edit does not rerun the computations)
    assert "papers/spdp/stages/release.py" not in files
    assert "mechanisms/spectral.py" not in files
    # an import inside a function is followed too
    jobs = tmp_path / "j.py"
    jobs.write_text("def f():\n    from dpgrid.grid.opf import run_hours\n")
    assert pkg / "grid" / "opf.py" in module_closure(jobs, pkg)


def test_code_hash_changes_exactly_with_reachable_sources(tmp_path):
    pkg = _copy_src(tmp_path)
    fig = tmp_path / "fig.py"
    fig.write_text("from dpgrid.papers.spdp import figures\n")
    job = tmp_path / "job.py"
    job.write_text("from dpgrid.papers.spdp.stages import release\n")
    before = code_hash(fig, pkg), code_hash(job, pkg)
    with open(pkg / "figures" / "style.py", "a") as fh:
        fh.write("\n# edited\n")
    after = code_hash(fig, pkg), code_hash(job, pkg)
    assert after[0] != before[0]  # figures import the style
    assert after[1] == before[1]  # the jobs do not
    with open(pkg / "models" / "psd.py", "a") as fh:
        fh.write("\n# edited\n")
    assert code_hash(job, pkg) != after[1] and code_hash(fig, pkg) == after[0]


def test_unresolvable_import_is_an_error(tmp_path):
    pkg = _copy_src(tmp_path)
    bad = tmp_path / "bad.py"
    bad.write_text("from dpgrid.no_such_module import x\n")
    with pytest.raises(ProvenanceError, match="dpgrid.no_such_module"):
        module_closure(bad, pkg)


def _snakemake(workdir, *args):
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "1", *args],
        cwd=workdir,
        capture_output=True,
        text=True,
        env=snakemake_env(PYTHONPATH=str(workdir / "src")),
    )


def test_module_edit_reruns_dependent_rule_only(tmp_path):
    """A real run: editing a module reruns the rule whose script imports it and no other (params trigger)."""
    shutil.copytree(REPO / "src", tmp_path / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    (tmp_path / "workflow" / "rules").mkdir(parents=True)
    (tmp_path / "workflow" / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "workflow" / "rules" / "common.smk", tmp_path / "workflow" / "rules")
    for name, module in (("uses_figures", "dpgrid.figures.style"), ("uses_meter", "dpgrid.data.meter")):
        (tmp_path / "workflow" / "scripts" / f"{name}.py").write_text(
            textwrap.dedent(f"""
            import {module}
            from pathlib import Path
            Path(snakemake.output[0]).write_text("done")  # noqa: F821
        """)
        )
    (tmp_path / "Snakefile").write_text(
        textwrap.dedent("""
        include: "workflow/rules/common.smk"

        rule all:
            input: "uses_figures.txt", "uses_meter.txt"

        rule uses_figures:
            output: "uses_figures.txt"
            script: "workflow/scripts/uses_figures.py"

        rule uses_meter:
            output: "uses_meter.txt"
            script: "workflow/scripts/uses_meter.py"

        add_code_params()
    """)
    )
    first = _snakemake(tmp_path)
    assert first.returncode == 0, first.stderr
    assert (tmp_path / "uses_figures.txt").exists()

    nothing = _snakemake(tmp_path, "-n")
    assert "Nothing to be done" in nothing.stdout + nothing.stderr

    with open(tmp_path / "src" / "dpgrid" / "figures" / "style.py", "a") as fh:
        fh.write("\n# an edit snakemake cannot see without the code hash\n")
    dry = _snakemake(tmp_path, "-n")
    out = dry.stdout + dry.stderr
    assert dry.returncode == 0, out
    assert "uses_figures" in out and "params" in out.lower()
    assert re.search(r"^uses_figures\s+1$", out, flags=re.M)
    assert not re.search(r"^uses_meter\s+\d+$", out, flags=re.M)
    assert "rule uses_meter:" not in out


def test_import_cache_parses_only_changed_files_and_follows_their_edits(tmp_path, monkeypatch):
    from dpgrid.core import provenance

    # a clean process-wide cache state for this test (restored afterwards)
    for name, value in (("_PERSISTENT", None), ("_PERSISTENT_USED", {})):
        monkeypatch.setattr(provenance, name, value)
    monkeypatch.setattr(provenance, "_PERSISTENT_FILE", tmp_path / "unused.json")  # no atexit registration
    parsed = []
    real_parse = provenance._parse_imports
    monkeypatch.setattr(provenance, "_parse_imports", lambda path, *a: parsed.append(path) or real_parse(path, *a))
    pkg = _copy_src(tmp_path)
    script = tmp_path / "s.py"
    script.write_text("from dpgrid.papers.spdp import figures\n")
    cache = tmp_path / "cache" / "imports.json"

    provenance.use_import_cache(cache)  # no cache file yet: everything parsed
    expected_hash, expected_closure = code_hash(script, pkg), module_closure(script, pkg)
    assert len(parsed) == len(expected_closure) + 1  # the script and each module of its closure, once
    provenance.save_import_cache()
    assert cache.is_file()

    provenance.use_import_cache(cache)  # a later run: nothing parsed, the same hash and closure
    parsed.clear()
    assert (code_hash(script, pkg), module_closure(script, pkg)) == (expected_hash, expected_closure)
    assert parsed == []
    written = cache.stat().st_mtime_ns
    provenance.save_import_cache()  # nothing new: the file is not rewritten
    assert cache.stat().st_mtime_ns == written

    # an edit that adds an import: of the cached files that one alone is parsed again (besides the modules the
    # new import reaches for the first time), and the closure follows the new import
    style = pkg / "figures" / "style.py"
    style.write_text(style.read_text() + "\n\ndef _edited():\n    from dpgrid.grid import opf\n")
    closure = module_closure(script, pkg)
    assert pkg / "grid" / "opf.py" in closure
    assert parsed[0] == style
    assert set(parsed[1:]) == set(closure) - set(expected_closure)

    # a corrupt cache counts as empty (everything parsed again, same result)
    cache.write_text("{not json", encoding="utf-8")
    provenance.use_import_cache(cache)
    parsed.clear()
    assert pkg / "grid" / "opf.py" in module_closure(script, pkg)
    assert len(parsed) > 1
