"""Editing a dpgrid module reruns exactly the Snakemake jobs that depend on it."""

import re
import shutil
import subprocess
import sys
import textwrap

from conftest import REPO, snakemake_env

from dpgrid.provenance import source_hash


def test_source_hash_changes_with_module_source(tmp_path, monkeypatch):
    pkg = tmp_path / "src"
    shutil.copytree(REPO / "src" / "dpgrid", pkg / "dpgrid", ignore=shutil.ignore_patterns("__pycache__"))
    code = ("import sys; sys.path.insert(0, {src!r}); from dpgrid.provenance import source_hash; "
            "print(source_hash('dpgrid.figures'), source_hash('dpgrid.data.meter'))").format(src=str(pkg))
    run = lambda: subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    before = run()
    with open(pkg / "dpgrid" / "figures" / "style.py", "a") as fh:
        fh.write("\n# edited\n")
    after = run()
    assert after[0] != before[0]          # figures package changed
    assert after[1] == before[1]          # data.meter did not


def test_source_hash_covers_infrastructure():
    assert source_hash("dpgrid.figures") != source_hash("dpgrid.data.meter")
    assert len(source_hash("dpgrid.io")) == 16


def _snakemake(workdir, *args):
    return subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", *args], cwd=workdir,
                          capture_output=True, text=True, env=snakemake_env(PYTHONPATH=""))


def test_module_edit_reruns_dependent_rule_only(tmp_path):
    shutil.copytree(REPO / "src", tmp_path / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    (tmp_path / "workflow" / "rules").mkdir(parents=True)
    shutil.copy(REPO / "workflow" / "rules" / "common.smk", tmp_path / "workflow" / "rules")
    (tmp_path / "Snakefile").write_text(textwrap.dedent("""
        include: "workflow/rules/common.smk"

        rule all:
            input: "uses_figures.txt", "uses_meter.txt"

        rule uses_figures:
            output: "uses_figures.txt"
            params: src=source_hash("dpgrid.figures")
            shell: "echo {params.src} > {output}"

        rule uses_meter:
            output: "uses_meter.txt"
            params: src=source_hash("dpgrid.data.meter")
            shell: "echo {params.src} > {output}"
    """))
    first = _snakemake(tmp_path)
    assert first.returncode == 0, first.stderr
    assert (tmp_path / "uses_figures.txt").exists()

    nothing = _snakemake(tmp_path, "-n")
    assert "Nothing to be done" in nothing.stdout + nothing.stderr

    with open(tmp_path / "src" / "dpgrid" / "figures" / "style.py", "a") as fh:
        fh.write("\n# an edit snakemake cannot see without the source hash\n")
    dry = _snakemake(tmp_path, "-n")
    out = dry.stdout + dry.stderr
    assert dry.returncode == 0, out
    assert "uses_figures" in out and "params" in out.lower()
    assert re.search(r"^uses_figures\s+1$", out, flags=re.M)
    assert not re.search(r"^uses_meter\s+\d+$", out, flags=re.M)
    assert "rule uses_meter:" not in out
