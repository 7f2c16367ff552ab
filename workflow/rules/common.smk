# Shared helpers for all rules files: package import path, source hashes, the target registry.
import functools
import re
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError

# The DAG (source hashes) uses this checkout's package (src/). Scripts import the installed
# package; `pip install -e .` makes that this checkout too, and dpgrid.core.pipeline.run_script
# refuses to run from any other copy.
# The checkout's root, from this file's place (workflow/rules/common.smk): workflow.basedir is the folder of the
# Snakefile Snakemake was started with, the repository root or workflow/ (workflow/Snakefile).
REPO = Path(str(workflow.current_basedir)).resolve().parents[1]
_SRC = str(REPO / "src")
if _SRC not in sys.path:
    sys.path.insert(0, _SRC)

from dpgrid.core.config import config_slice
from dpgrid.core.replicates import (
    DATA_FOLDER_PATTERN,
    NOISE_FOLDER_PATTERN,
    data_index,
    data_seed,
    noise_index,
    noise_seed,
    replicate_grid,
    replicate_path,
)
from dpgrid.core.papers import paper_descriptors, paper_names
from dpgrid.core.provenance import code_hash
from dpgrid.core.sweeps import batches, sweep_label, sweep_labels, swept_value
from dpgrid.core.workflow_registry import WorkflowRegistry

# What the rules files register while the workflow is parsed (dpgrid.core.workflow_registry): the papers' targets,
# claims and audit tables, the meter data they read, the jobs the cost tables measure. The helpers below are its
# methods, called by the rules files.
REGISTRY = WorkflowRegistry()
register_targets = REGISTRY.register_targets
register_claims = REGISTRY.register_claims
register_privacy_audit = REGISTRY.register_privacy_audit
register_data_used = REGISTRY.register_data_used
register_benchmarks = REGISTRY.register_benchmarks
register_spread = REGISTRY.register_spread
register_over_seeds_targets = REGISTRY.register_over_seeds_targets


def figure_files(stem):
    """The PDF and PNG of a figure."""
    return [f"{stem}.pdf", f"{stem}.png"]


def paper_targets(paper):
    return REGISTRY.paper_targets(paper, config[paper]["targets"])


def all_targets():
    files = [
        f"{RUN_RESULTS}claims.md",
        f"{RUN_RESULTS}claims.csv",
        f"{RUN_RESULTS}claims_index.md",
        f"{RUN_RESULTS}report/claims.html",
        f"{RUN_RESULTS}privacy_audits.csv",
        f"{RUN_RESULTS}report/summary.rst",
        f"{RUN_RESULTS}report/papers.rst",
        *report_caption_files(),
    ]
    for paper in PAPERS:
        files += paper_targets(paper)
    return files + REGISTRY.extra_targets


# The papers, from their descriptors (dpgrid.core.papers): this file names none.
PAPERS = paper_names()


def paper_rules_files():
    """Every paper's rules files, ``workflow/papers/<paper>/<name>.smk`` (relative to the file that includes them) for the ``rules_files`` its descriptor
    names (after the paper's ``common.smk`` of functions, if any), in the papers' order; a rules file in a
    paper's folder that the descriptor does not name is an error."""
    files = []
    for d in paper_descriptors():
        folder = REPO / "workflow" / "papers" / d.name
        present = sorted(p.stem for p in folder.glob("*.smk") if p.name != "common.smk")
        if sorted(d.rules_files) != present:
            raise WorkflowError(
                f"workflow/papers/{d.name}/ has the rules files {present}, its descriptor "
                f"(dpgrid.papers.{d.name}.descriptor.DESCRIPTOR.rules_files) names {sorted(d.rules_files)}"
            )
        if (folder / "common.smk").is_file():  # the paper's input and params functions, before its rules
            files.append(f"workflow/papers/{d.name}/common.smk")
        files += [f"workflow/papers/{d.name}/{stem}.smk" for stem in d.rules_files]
    return [_from_rules_file(f) for f in files]  # Snakemake resolves an include from the including file


def job_benchmarks():
    """Every job's benchmark file: the inputs of rule pipeline_costs."""
    return REGISTRY.job_benchmarks(workflow.rules)


def rule_specs():
    """What every rule declares (threads, mem_mb, runtime) and its experiment (rules file)."""
    return REGISTRY.rule_specs(workflow.rules)


# ---- the config: merged, validated before any rule is defined ----


def config_files():
    """The config files merged into ``config``, lowest priority first (config/config.yaml, then --configfile files)."""
    cli = [str(f) for f in workflow.overwrite_configfiles]
    return [str(f) for f in workflow.configfiles if str(f) not in cli] + cli


def check_config():
    """Apply the replace rule of data sources, then validate ``config`` (dpgrid.core.config); stop with a message naming key and file."""
    from dpgrid.core.config import (
        ConfigError,
        load_config_file,
        normalise_numbers,
        replace_data_sources,
        validate_config,
    )

    files = config_files()
    try:
        replace_data_sources(config, files, workflow.config_settings.config)
        validate_config(config, REPO / "workflow" / "schemas" / "config.schema.yaml", files)
        # 30 and 30.0 are one value: written as config/config.yaml writes it, so it is one param (no rerun)
        normalise_numbers(config, load_config_file(REPO / "config" / "config.yaml"))
    except ConfigError as exc:
        raise WorkflowError(str(exc)) from None
    from dpgrid.core.pipeline import SnakemakeRecordError, check_snakemake_records

    try:
        check_snakemake_records(Path(".snakemake") / "metadata")
    except SnakemakeRecordError as exc:
        raise WorkflowError(str(exc)) from None
    from dpgrid.data.resources import oversized_experiments

    too_big = oversized_experiments(config["data"]["experiments"])
    if too_big:
        raise WorkflowError("invalid config (sizes):\n" + "\n".join(f"  - {p}" for p in too_big))


def run_folders():
    """The run's folders (dpgrid.core.config.RUN_FOLDERS: results, resources, logs, benchmarks), each with a trailing
    "/": the folder itself for the empty run name (``run.name``), ``<folder>/<name>/`` otherwise. Once the config
    is validated (check_config)."""
    from dpgrid.core.config import RUN_FOLDERS, run_folder

    return tuple(run_folder(config, folder) for folder in RUN_FOLDERS)


def checked_inputs(check, files):
    """An input function: ``files`` (a dict, or a function of the wildcards giving one), once ``check(config,
    wildcards)`` found no problem. A problem (e.g. data with fewer meters than a rule's config needs,
    dpgrid.data.meter_counts) stops the plan while Snakemake builds it: before any job, ``-n`` too, and only when
    the requested targets need that rule's job."""

    def inputs(wildcards):
        problems = check(config, wildcards)
        if problems:
            raise WorkflowError("invalid config (meter counts):\n" + "\n".join(f"  - {p}" for p in problems))
        return files(wildcards) if callable(files) else files

    return inputs


def experiment_spec(wildcards):
    """The data.experiments entry of a meter_data job (None without wildcards: a rule's declared resources)."""
    experiment = getattr(wildcards, "experiment", None) if wildcards is not None else None
    return config["data"]["experiments"].get(experiment) if experiment else None


# The output folders must be writable only for runs that write: `snakemake -n`, `--summary` and
# `--list-params-changes` of a read-only (archived) tree must still work. Snakemake calls onstart only
# when jobs are about to run (not in a dry run, nor when nothing is to be done), before the first job.
onstart:
    from dpgrid.core.pipeline import InterpreterPathError, OutputDirError, check_interpreter_path, check_writable

    try:
        check_interpreter_path(sys.executable)  # the interpreter script jobs run with
        check_writable(["results", "resources", "logs", "benchmarks"])
    except (InterpreterPathError, OutputDirError) as exc:
        raise WorkflowError(str(exc)) from None


# What a successful run wrote (SHA-256 of results/ and resources/, in .snakemake/dpgrid/outputs.sha256):
# `python -m dpgrid.core.results_record` names the outputs edited by hand since (Snakemake does not).
onsuccess:
    from dpgrid.core.results_record import write_record

    write_record(".")


# ---- the job contract: params carry the config a job reads, and the code it runs ----


def cfg_slice(section, *paths):
    """The config values at ``paths`` (dotted, under ``config[section]``) as a nested dict: a rule's ``cfg`` param."""
    return config_slice(config, section, *paths)


# ---- the replicates' root seeds (dpgrid.core.replicates), from a job's replicate wildcards ----


def data_seed_param(wildcards):
    """The root seed of a job's data draws: its data replicate's (``config["seed"]`` for replicate 0)."""
    return data_seed(config["seed"], data_index(wildcards.drep))


def replicate_files(pattern):
    """The file ``pattern`` (with the replicate wildcards) of every replicate of ``config["replicates"]``, (0, 0)
    first, each once (a data-level file is one per data replicate)."""
    every = replicate_grid(config["replicates"]["data"], config["replicates"]["noise"])
    return list(dict.fromkeys(replicate_path(pattern, d, n) for d, n in every))


def over_seeds_targets():
    """The files of the target over_seeds: the claims over seeds, every registered spread, the figures drawn
    from them."""
    spreads = [f"{RUN_RESULTS}over_seeds/{table}.{ext}" for table in REGISTRY.spreads for ext in ("csv", "md")]
    return [f"{RUN_RESULTS}claims_over_seeds.csv", f"{RUN_RESULTS}claims_over_seeds.md", *spreads] + list(
        REGISTRY.over_seeds_targets
    )


def noise_seed_param(wildcards):
    """The root seed of a job's noise draws: its noise replicate's (``config["seed"]`` for replicate (0, 0))."""
    return noise_seed(config["seed"], data_index(wildcards.drep), noise_index(wildcards.nrep))


def add_code_params():
    """Add the param ``code`` to each script rule, the hash of the dpgrid source its script can run.

    Called once at the end of the Snakefile. Snakemake reruns a job whose params changed, so an edit
    of any module a script reaches (found by reading the imports, dpgrid.core.provenance) reruns exactly
    the jobs of the rules whose scripts reach it.

    The import lists are cached in ``.snakemake/dpgrid/imports.json`` by file content: a later run parses only
    the modules that changed (dpgrid.core.provenance.use_import_cache).
    """
    from dpgrid.core.provenance import use_import_cache

    use_import_cache(Path(".snakemake") / "dpgrid" / "imports.json")
    package = REPO / "src" / "dpgrid"  # this workflow's copy of the package
    for r in workflow.rules:
        if r.script is not None:
            script = Path(r.snakefile).parent / r.script
            if r.name in REGISTRY.job_modules:
                r.set_params(code=_job_code(script, package, REGISTRY.job_modules[r.name]))
            else:
                r.set_params(code=code_hash(script, package))


def _job_code(script, package, modules):
    def code(wildcards):
        return code_hash(script, package, extra_modules=modules(wildcards))

    return code


# ---- input and params functions of the data rules (each paper's own: workflow/papers/<paper>/common.smk) ----


# data.smk
def mirror_param(wildcards, output):
    """The mirror folder in effect (None: download), for the download jobs.

    A function of ``output``, so a *derived* param: Snakemake passes it to the job but does not record it
    as a rerun trigger. Where a file came from (a mirror, another mirror, the URL) must not rerun a
    verified download whose pinned SHA-256 is unchanged: a run without DPGRID_MIRROR would otherwise delete
    the pinned files and, offline, fail to fetch them again."""
    return DOWNLOAD_MIRROR


def fetched_sha256(dataset):
    """The pinned SHA-256 of the file a download job fetches: the mirror's own pin when a mirror is in
    effect (it may hold an excerpt, data.downloads.<dataset>.mirror.sha256), else the canonical file's."""
    spec = config["data"]["downloads"][dataset]
    if DOWNLOAD_MIRROR is not None and spec["mirror"].get("sha256") is not None:
        return spec["mirror"]["sha256"]
    return spec["sha256"]


def synthesised(experiment):
    """Whether the experiment's data are synthesised from a field model (seeded) rather than read from files."""
    from dpgrid.data.sources import is_synthesised

    return is_synthesised(config["data"]["experiments"][experiment]["source"])


def meter_data_modules(wildcards):
    """The paper stand-in module a meter_data job runs (none for the built-in sources)."""
    from dpgrid.data.sources import source_module

    name = source_module(config["data"]["experiments"][wildcards.experiment]["source"])
    return [name] if name else []


_DIGESTS = {}


def user_file_digests(wildcards):
    """SHA-256 of the user's files of a `source: csv` experiment (readings, meters), or None for other sources.

    A param of meter_data, so the user's data are tracked by content: replacing the readings CSV with other
    content reruns the experiment even when the new file is older than the results (the mtime trigger alone
    misses that). Each file is hashed once per Snakemake process and state (size, mtime, ctime, inode), about
    2 s per GB."""
    from dpgrid.data.download import sha256_file

    spec = config["data"]["experiments"][wildcards.experiment]
    if spec["source"] != "csv":
        return None
    out = {}
    for key in ("readings", "meters"):
        path = spec.get(key)
        if path is None or not Path(path).is_file():
            continue  # a missing file is reported as a missing input
        st = Path(path).stat()
        state = (str(path), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
        if state not in _DIGESTS:
            _DIGESTS[state] = sha256_file(path)
        out[key] = _DIGESTS[state]
    return out


def meter_data_inputs(wildcards):
    """Input files by source: the download rule's output (and its digest) for UCI data, the user's files for csv."""
    spec = config["data"]["experiments"][wildcards.experiment]
    if spec["source"] in DOWNLOAD_FILES:
        return {"raw": DOWNLOAD_FILES[spec["source"]], "raw_digest": DOWNLOAD_FILES[spec["source"]] + ".sha256"}
    if spec["source"] == "csv":
        files = {"csv_readings": spec["readings"]}
        if spec.get("meters") is not None:
            files["csv_meters"] = spec["meters"]
        return files
    return {}


# ---- sweeps run as one job per point (a paper's budgets, seeds, thresholds) ----
def sweep_constraint(labels):
    """wildcard_constraints value matching exactly the given labels."""
    return "|".join(re.escape(label) for label in labels)


# ---- the report (`snakemake --report results/report.zip`; report.smk, dpgrid.core.report_pages) ----
# Each paper's caption texts: workflow/papers/<paper>/targets.yaml.
REPORT_TEXTS = [f"workflow/papers/{paper}/targets.yaml" for paper in PAPERS]


@functools.cache
def report_texts():
    """The papers' caption texts (read once per Snakemake process)."""
    from dpgrid.core.report_pages import load_paper_texts

    return load_paper_texts({p: REPO / f for p, f in zip(PAPERS, REPORT_TEXTS)})


# report categories: one per paper in the papers' order (subcategories: its figures and tables, named
# "Fig. 4 — <what it shows>" in the order of its targets.yaml), and the claims table
def report_categories():
    from dpgrid.core.report_pages import category_titles

    return category_titles([(d.name, d.title) for d in paper_descriptors()], "Claims table (all papers)")


REPORT_CATEGORIES = report_categories()


def report_subcategory(category, subcategory):
    """The report's subcategory of a paper's target ``subcategory`` (a target name, possibly with wildcards): its
    menu name (dpgrid.core.report_pages.subcategory_titles); the claims table's entries keep theirs."""
    if category not in PAPERS:
        return subcategory
    from dpgrid.core.report_pages import subcategory_titles

    titles = subcategory_titles(report_texts()[category])
    if "{" not in subcategory:
        return titles[subcategory]
    return lambda wildcards: titles[subcategory.format(**dict(wildcards.items()))]


def report_caption_file(path):
    """The caption of a result file in the report (written by rule <paper>_report_captions or claims_page)."""
    from dpgrid.core.report_pages import caption_file

    return caption_file(replicate_path(path), RUN_RESULTS)


def _from_rules_file(path):
    """``path`` (relative to the workflow's folder) as seen from the rules file being parsed: Snakemake reads a
    report caption relative to the rules file that flags the output."""
    import os

    return os.path.relpath(REPO / path, str(workflow.current_basedir))


def report_entry(path, category, subcategory, output_name=None):
    """Flag a result file for the report: its paper's category, its target as subcategory, and its caption.

    A file with wildcards (one rule, several targets) takes its caption through the template
    workflow/report/output_<output_name>.rst, which includes the caption of the job's file of that name."""
    # the report shows replicate (0, 0), the run itself: a file with other wildcards has a caption template
    caption = _from_rules_file(
        f"workflow/report/output_{output_name}.rst" if "{" in replicate_path(path) else report_caption_file(path)
    )
    return report(
        path,
        caption=caption,
        category=REPORT_CATEGORIES[category],
        subcategory=report_subcategory(category, subcategory),
    )


def report_caption_specs(paper):
    """What each caption of a paper says besides the claims (params of <paper>_report_captions): texts, data,
    parameter values."""
    from dpgrid.core.report_pages import caption_specs

    return caption_specs(
        report_texts(), REGISTRY.targets, config, [paper], run=rebuild_options(), download_sources=set(DOWNLOAD_FILES)
    )


# The mirror a rebuild command names where its target needs a download: the reviewers' layout (README,
# ARTIFACT.md A.2: the offline copies in ../shared/data; online, leave DPGRID_MIRROR out). Not the run's own
# mirror path: where downloads come from is no rerun trigger (README), and CI runs copies of the workflow elsewhere.
SHOWN_MIRROR = "../shared/data"


def rebuild_options(overrides=False):
    """What a rebuild command carries of this run (dpgrid.core.rebuild): its config files besides
    config/config.yaml and SHOWN_MIRROR; its --config overrides only with ``overrides`` (the run's closing summary):
    as a job's param they would rerun the jobs that show commands after any override of any key."""
    from dpgrid.core.rebuild import run_options

    extra = dict(workflow.config_settings.config or {}) if overrides else {}
    return run_options(config_files(), extra, SHOWN_MIRROR)


def claims_index_params():
    """The claims index's params besides the targets (the run's options; the targets that need a download)."""
    from dpgrid.core.report_pages import downloads_needed

    return {
        "run": rebuild_options().as_params(),
        "downloads": downloads_needed(report_texts(), REGISTRY.targets, config, set(DOWNLOAD_FILES)),
    }


def report_caption_files(papers=None):
    """The caption files of the papers' targets (default: every paper)."""
    from dpgrid.core.report_pages import caption_file, shown_files

    return sorted(
        {
            caption_file(f, RUN_RESULTS)
            for paper in (papers or PAPERS)
            for files in REGISTRY.targets.get(paper, {}).values()
            for f in shown_files(files)
        }
    )


def report_shown_targets():
    """``{paper: [targets with a file in the report]}``: the claims page's caption lists the rows of all others."""
    from dpgrid.core.report_pages import shown_files

    return {
        paper: sorted(n for n, files in REGISTRY.targets.get(paper, {}).items() if shown_files(files))
        for paper in PAPERS
    }


def report_paper_field(field, default=None):
    """``{paper: its caption texts' field}`` (workflow/papers/<paper>/targets.yaml) in the papers' order; without a
    ``default`` the field is required."""
    texts = report_texts()
    return {paper: texts[paper][field] if default is None else texts[paper].get(field, default) for paper in PAPERS}
