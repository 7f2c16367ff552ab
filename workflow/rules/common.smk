# Shared helpers for all rules files: package import path, source hashes, the target registry.
import sys
from pathlib import Path

# The DAG (source hashes) uses this checkout's package (src/). Scripts import the installed
# package; `pip install -e .` makes that this checkout too, and dpgrid.pipeline.run_script
# refuses to run from any other copy.
_SRC = str(Path(workflow.basedir) / "src")
if _SRC not in sys.path:
    sys.path.insert(0, _SRC)

from dpgrid.provenance import source_hash

# Every figure/table target a paper offers, by name: TARGETS[paper][name] -> list of files.
# Each paper's rules file registers its own; config[<paper>]["targets"] chooses which `all` builds.
TARGETS = {}
# Every claims CSV the report collects (each paper registers its own; a paper may have several).
CLAIMS = []


def register_targets(paper, targets):
    """Add named targets of ``paper`` (several rules files may register targets of one paper)."""
    for name, files in targets.items():
        if name in TARGETS.get(paper, {}):
            raise ValueError(f"target {name!r} of {paper!r} registered twice")
        TARGETS.setdefault(paper, {})[name] = [files] if isinstance(files, str) else list(files)


def register_claims(path):
    """Add a claims CSV (written with dpgrid.claims.write_claims) to results/claims.md."""
    CLAIMS.append(path)


def figure_files(stem):
    """The PDF and PNG of a figure."""
    return [f"{stem}.pdf", f"{stem}.png"]


def paper_targets(paper):
    known = TARGETS.get(paper, {})
    unknown = [name for name in config[paper]["targets"] if name not in known]
    if unknown:
        raise ValueError(f"config: {paper}.targets names unknown target(s) {unknown}; known: {sorted(known)}")
    return [f for name in config[paper]["targets"] for f in known[name]]


def all_targets():
    files = ["results/claims.md", "results/claims.csv"]
    for paper in PAPERS:
        files += paper_targets(paper)
    return files


PAPERS = ["classdp", "spdp", "dpkmeans", "blowfish"]
