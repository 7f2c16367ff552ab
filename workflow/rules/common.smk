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


# ---- input and params functions of the rules files (kept here: rules files hold only rules) ----


# data.smk
def meter_data_inputs(wildcards):
    """Input files by source: the download rule's output for UCI data, the user's files for csv."""
    spec = config["data"]["experiments"][wildcards.experiment]
    if spec["source"] in DOWNLOAD_FILES:
        return {"raw": DOWNLOAD_FILES[spec["source"]]}
    if spec["source"] == "csv":
        files = {"csv_readings": spec["readings"]}
        if spec["meters"] is not None:
            files["csv_meters"] = spec["meters"]
        return files
    return {}


# classdp.smk
def classdp_setting_cfg(wc):
    """Params of the per-setting jobs: shared mechanism keys plus the setting's own section."""
    return {"seed": config["seed"], "common": {k: config["classdp"][k] for k in
            ("accuracy_budget_rule", "delta_tolerance", "algorithm1", "audit", "attack")},
            "setting": config["classdp"][wc.setting],
            "data": config["data"]["experiments"][config["classdp"]["forecast"]["data_source"]] if wc.setting == "forecast" else None}


def classdp_rho_label(rho):
    return f"{float(rho):g}"


def classdp_rhos(setting):
    return [classdp_rho_label(r) for r in config["classdp"][setting]["rhos"]]


# grid.smk
def grid_profile_sets():
    from dpgrid.experiments.opf import profile_sets

    return profile_sets(int(config["grid"]["experiment"]["n_reference_draws"]))


def grid_hour_batches():
    from dpgrid.experiments.opf import hour_batches

    return hour_batches(config["grid"])


def grid_feeder_inputs(wildcards):
    if wildcards.feeder == "ieee123":
        return {"master": GRID_IEEE123_MASTER, "linecodes": "resources/downloads/ieee123/IEEELineCodes.DSS"}
    return {}
