"""Trusted rebuilds: every config edit and every code edit reruns exactly the jobs that depend on it.

The job contract (dpgrid.core.pipeline.Job) gives a job only its rule's params, so a config value can
reach a job only through its rule's params, which Snakemake compares with the values recorded at
the last run (params rerun trigger). These tests check, on the workflow as Snakemake plans it
(tests/helpers/workflow_dag.py builds the DAG in-process):

- every leaf key of config/config.yaml (and every key the schema allows) plans at least one job
  when changed, unless it is in NO_JOB_READS with the reason why (and then it must plan none);
- a key of one paper's section plans no job of another paper;
- the root seed plans exactly the jobs that draw random numbers;
- editing a dpgrid module plans exactly the jobs whose scripts import it (computed closure).
"""

from __future__ import annotations

import ast
import copy
import functools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dpgrid.core.config import ConfigError, validate_config
from dpgrid.core.papers import paper_names
from dpgrid.core.provenance import module_closure
from tests.helpers.repo import REPO, copy_workflow, rules_files, snakemake_env
from tests.helpers.workflow_dag import plan, planned_after_change

QUICK = ["config/quick.yaml"]
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"

#: Keys no job reads, each with the reason; each must plan no job when changed (checked below).
NO_JOB_READS = {
    **{
        (paper, "targets"): "chooses which figures/tables `all` builds; building is planned only for targets not yet "
        "built"
        for paper in paper_names()
    },
    ("grid", "feeders", "case141"): "the 141-bus case has no parameters (an empty mapping)",
    ("data", "mirror"): "where downloads come from; their pinned SHA-256 is the rerun trigger (a derived param)",
    **{
        ("replicates", axis): "how many replicates claims_over_seeds builds; `all` builds replicate (0, 0) only"
        for axis in ("data", "noise")
    },
}

#: The spdp experiment on the UCI household record (one variant for every key only that source reads).
UCI_HOUSEHOLD_SPDP = {
    "data": {
        "experiments": {
            "spdp": {
                "source": "uci_household",
                "start": "2007-01-08",
                "days": 98,
                "step_minutes": 5,
                "pseudo_meters": None,
            }
        }
    }
}

#: Keys that act only when a data source other than the default uses them: tested with that source.
SOURCE_VARIANTS = {
    ("data", "resample"): UCI_HOUSEHOLD_SPDP,
    ("data", "plausible_kw"): UCI_HOUSEHOLD_SPDP,
    ("data", "downloads", "uci_household"): UCI_HOUSEHOLD_SPDP,
    ("data", "downloads", "uci_eld"): {
        "data": {
            "experiments": {
                "dpkmeans": {"source": "uci_eld", "start": "2012-01-02", "days": 14, "step_minutes": 60, "n_meters": 90}
            }
        }
    },
}

#: A valid spec of each source, for the change of an experiment's ``source``.
OTHER_SOURCE = {
    "uci_household": {
        "source": "uci_household",
        "start": "2007-01-08",
        "days": 98,
        "step_minutes": 5,
        "pseudo_meters": 4,
    },
    "uci_eld": {"source": "uci_eld", "start": "2012-01-02", "days": 35, "step_minutes": 15, "n_meters": 30},
    "csv": {
        "source": "csv",
        "start": "2020-03-02",
        "days": 35,
        "step_minutes": 15,
        "readings": "readings.csv",
        "meters": None,
    },
    "synthetic": {
        "source": "synthetic",
        "start": "2019-01-07",
        "days": 35,
        "step_minutes": 15,
        "n_residential": 10,
        "n_commercial": 0,
    },
    "synthetic_clustered": {
        "source": "synthetic_clustered",
        "start": "2019-01-07",
        "days": 35,
        "step_minutes": 15,
        "n_residential": 12,
        "n_clusters": 3,
        "within_cluster_similarity": 0.9,
    },
    "spdp_standin": {
        "source": "spdp_standin",
        "start": "2019-01-07",
        "days": 105,
        "step_minutes": 5,
        "mean_kw": 1.73,
        "std_kw": 1.74,
        "hvac_energy_share": 0.3,
        "heating": "heat_pump",
    },
}

#: The peers section's keys act only with the peers enabled: tested with them on (``peers.enabled`` itself from off).
PEERS_ON = {"peers": {"enabled": True}}

PAPERS = ("classdp", "spdp", "dpkmeans", "blowfish")


def owner(rule: str) -> str:
    """The paper a rule belongs to (grid_* and the OPF rules are dpkmeans' Figs. 12-13), or the layer."""
    if rule.startswith("grid_"):
        return "dpkmeans"
    for p in PAPERS:
        if rule.startswith(p + "_"):
            return p
    return "data" if rule in ("meter_data",) or rule.startswith("download_") else "report"


def section_owner(path: tuple) -> str | None:
    return "dpkmeans" if path[0] == "grid" else path[0] if path[0] in PAPERS else None


# ------------------------------------------------------------------------------------------------
# the keys


def leaves(node, prefix=()):
    if isinstance(node, dict) and node:
        for k, v in node.items():
            yield from leaves(v, prefix + (k,))
    else:
        yield prefix


def _effective_config() -> dict:
    from dpgrid.core.config import merge_config, replace_data_sources

    base = merge_config(*(yaml.safe_load((REPO / "config" / f).read_text()) for f in ("config.yaml", "quick.yaml")))
    replace_data_sources(base, [REPO / "config" / "config.yaml", REPO / "config" / "quick.yaml"])
    return base


CONFIG = _effective_config()
KEYS = sorted(leaves(CONFIG))


def get(cfg, path):
    for k in path:
        cfg = cfg[k]
    return cfg


def nested(path, value):
    out = value
    for k in reversed(path):
        out = {k: out}
    return out


def merged(*dicts):
    out: dict = {}
    for d in dicts:
        stack = [(out, d)]
        while stack:
            dst, src = stack.pop()
            for k, v in src.items():
                if isinstance(v, dict) and isinstance(dst.get(k), dict):
                    stack.append((dst[k], v))
                else:
                    dst[k] = copy.deepcopy(v)
    return out


@functools.lru_cache(maxsize=1)
def _schema_files() -> dict:
    """The parsed schema files (read once per test process; they are not edited by the tests)."""
    from dpgrid.core.config import ROOT_SCHEMA_NAME, root_schema, schema_document, schema_documents

    files = {name: schema_document(f) for name, f in schema_documents(SCHEMA).items()}  # with the stand-in sources
    files[ROOT_SCHEMA_NAME] = root_schema(SCHEMA)  # with the papers' sections
    return files


def _schema_node(path):
    """The schema of the value at ``path`` (following $ref within the schema files)."""
    files = _schema_files()

    def resolve(node, doc):
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            fname, _, frag = ref.partition("#")
            doc = files[fname] if fname else doc
            node = doc
            for part in [p for p in frag.split("/") if p]:
                node = node[part]
        return node, doc

    node, doc = resolve(files["config.schema.yaml"], files["config.schema.yaml"])
    for k in path:
        props = node.get("properties", {})
        if k in props:
            node, doc = resolve(props[k], doc)
        elif isinstance(node.get("additionalProperties"), dict):
            node, doc = resolve(node["additionalProperties"], doc)
        else:
            return {}
    return node


def candidates(value, path):
    """Changed values to try for the key at ``path`` (the first valid one is used)."""
    schema = _schema_node(path)
    if path[-1] in ("contour_rho", "fig3_rho"):  # must stay one of the setting's rhos
        return [r for r in get(CONFIG, path[:-1] + ("rhos",)) if r != value]
    if path[-1] == "data_source":  # must name an entry of data.experiments
        return [e for e in CONFIG["data"]["experiments"] if e != value]
    if path == ("grid", "experiment", "hours_per_job"):  # a size that cuts the hours into other batches
        return [n for n in (1, 2, 3) if n != value]
    if "enum" in schema:
        return [v for v in schema["enum"] if v != value]
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1, value - 1, value * 2, value + 10]
    if isinstance(value, float):
        return [value * 1.1 if value else 0.1, value * 0.9, value + 1.0, value / 2]
    if isinstance(value, str):
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            return [value[:-2] + f"{int(value[-2:]) % 28 + 1:02d}"]
        if re.fullmatch(r"[0-9a-f]{64}", value):
            return ["0" * 64]
        return [value + "x", value.rstrip("/") + "/x"]
    if value is None:
        return [2000, 1, 0.01, 1.0, "x", "0" * 64]
    if isinstance(value, list) and "enum" in schema.get("items", {}):  # a list of names: add or swap one
        others = [v for v in schema["items"]["enum"] if v not in value]
        return [value + [o] for o in others] + [[o] for o in others] + ([value[:-1]] if len(value) > 1 else [])
    if isinstance(value, list):
        out = []
        if value and not isinstance(value[0], (dict, list)):
            for c in candidates(value[-1], path):
                out.append(value[:-1] + [c])
            for c in candidates(value[0], path):
                out.append([c] + value[1:])
            if len(value) > 1:
                out.append(value[:-1])
        elif value and isinstance(value[0], list):  # e.g. a list of (eps, delta) budgets
            for c in candidates(value[0], path):
                out.append([c] + value[1:])
        elif value and isinstance(value[0], dict):
            first = value[0]
            for k in first:
                if isinstance(first[k], (int, float)) and not isinstance(first[k], bool):
                    for c in candidates(first[k], path + (0, k)):
                        out.append([{**first, k: c}] + value[1:])
            if len(value) > 1:
                out.append(value[:-1])
        return out
    return []


_PLANS: dict = {}


def base_plan(workdir, variant=None):
    key = repr(variant)
    if key not in _PLANS:
        _PLANS[key] = plan(workdir, configfiles=QUICK, config=variant or {})
    return _PLANS[key]


def variant_of(path):
    if path[0] == "peers" and path != ("peers", "enabled"):
        return PEERS_ON
    for prefix, v in SOURCE_VARIANTS.items():
        if path[: len(prefix)] == prefix:
            return v
    return None


def with_variant(variant):
    """CONFIG with a source variant applied (an experiment's data spec is replaced, as by an overlay file)."""
    cfg = copy.deepcopy(CONFIG)
    for exp, spec in ((variant or {}).get("data", {}).get("experiments", {})).items():
        cfg["data"]["experiments"][exp] = copy.deepcopy(spec)
    return cfg


def valid(cfg) -> bool:
    try:
        validate_config(cfg, SCHEMA)
        return True
    except ConfigError:
        return False


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return copy_workflow(tmp_path_factory.mktemp("rebuild") / "wf")


@pytest.fixture
def no_mirror_env(monkeypatch):
    monkeypatch.delenv("DPGRID_MIRROR", raising=False)


def test_config_keys_are_the_schema_keys():
    """Every key the schema allows is in config/config.yaml or a source variant (so the list below is complete)."""

    def schema_leaves(node, path, out):
        node = _schema_node(path)
        props = node.get("properties")
        if props:
            for k in props:
                schema_leaves(None, path + (k,), out)
        else:
            out.add(path)
        return out

    allowed = schema_leaves(None, (), set())
    variant_keys = {p for v in SOURCE_VARIANTS.values() for p in leaves(v)}
    missing = {
        p
        for p in allowed
        if not any(p[: len(k)] == k for k in set(KEYS) | variant_keys) and not any(k[: len(p)] == p for k in KEYS)
    }
    # source-specific keys of the other sources are exercised by tests/workflow/test_real_data_pipeline.py and the
    # source change below (OTHER_SOURCE)
    source_specific = {
        "n_meters",
        "pseudo_meters",
        "readings",
        "meters",
        "timezone",
        "n_residential",
        "n_commercial",
        "mean_kw",
        "std_kw",
        "hvac_energy_share",
        "heating",
        "small_clusters",
        "separation",
        "n_clusters",
        "within_cluster_similarity",
    }
    missing = {p for p in missing if not (p[:2] == ("data", "experiments") and p[-1] in source_specific)}
    assert not missing, f"schema keys absent from config/config.yaml: {sorted(missing)}"


@pytest.mark.parametrize("path", KEYS, ids=[".".join(map(str, k)) for k in KEYS])
def test_config_key_change_plans_exactly_its_jobs(path, workdir, monkeypatch):
    if path == ("data", "mirror"):
        monkeypatch.delenv("DPGRID_MIRROR", raising=False)
    variant = variant_of(path)
    base_cfg = with_variant(variant)
    before = base_plan(workdir, variant) if path != ("data", "mirror") else plan(workdir, configfiles=QUICK)
    value = get(base_cfg, path)
    if path in NO_JOB_READS and not candidates(value, path):
        return  # nothing to change (an empty mapping), and nothing reads it
    tried = []
    for new in candidates(value, path):
        change = nested(path, new)
        if path[:2] == ("data", "experiments") and path[-1] == "source":
            # another source needs its own keys: the experiment's spec is replaced as a whole
            change = nested(path[:-1], OTHER_SOURCE[new])
        cfg = merged(base_cfg, change) if path[-1] != "source" else with_variant(change)
        if not valid(cfg):
            tried.append((new, "invalid"))
            continue
        try:
            after = plan(workdir, configfiles=QUICK, config=merged(variant or {}, change))
        except Exception as exc:  # a value the workflow rejects (e.g. a cross-field check): try the next
            tried.append((new, type(exc).__name__))
            continue
        break
    else:
        pytest.fail(f"no valid change found for {'.'.join(map(str, path))} = {value!r}; tried {tried}")
    jobs = {k for k in planned_after_change(before, after) if k[0] != "all"}
    shown = sorted({k[0] for k in jobs})
    if path in NO_JOB_READS:
        assert not jobs, f"{path} is listed as read by no job ({NO_JOB_READS[path]}) but plans {shown}"
        return
    assert jobs, f"changing {'.'.join(map(str, path))} from {value!r} to {new!r} plans no job: stale results"
    mine = section_owner(path)
    if mine is not None:
        foreign = sorted({k[0] for k in jobs if owner(k[0]) != mine})
        assert not foreign, f"changing {'.'.join(map(str, path))} ({mine}) plans jobs of other parts: {foreign}"


def _rules_drawing_random_numbers() -> dict[str, bool]:
    """rule -> whether its job function (or a function of its module it calls) calls job_rng."""
    out, copies = {}, {}
    for smk in rules_files():
        text = smk.read_text()
        for m in re.finditer(r"^rule (\w+):\n(.*?)(?=^rule |^use rule |\Z)", text, flags=re.M | re.S):
            name, body = m.group(1), m.group(2)
            sm = re.search(r'script:\s*\n\s*"([^"]+)"', body)
            if not sm:
                continue
            script = (smk.parent / sm.group(1)).resolve()
            out[name] = _job_draws(script)
        # `use rule A as B with:` runs A's script (classdp's similarity sweep reuses the forecast chain's rules)
        copies.update({m.group(2): m.group(1) for m in re.finditer(r"^use rule (\w+) as (\w+)", text, flags=re.M)})
    out.update({copy: out[original] for copy, original in copies.items() if original in out})
    return out


def _job_draws(script: Path) -> bool:
    tree = ast.parse(script.read_text())
    call = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "run_script"][0]
    target = call.args[1]
    if isinstance(target, ast.Attribute):  # run_script(snakemake, module.function)
        alias, func = target.value.id, target.attr
    else:  # run_script(snakemake, function)
        alias = func = target.id
    module = None
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                if (a.asname or a.name) == alias:
                    module = f"{node.module}.{a.name}" if alias != func else node.module
    path = REPO / "src" / Path(*module.split(".")).with_suffix(".py")
    mtree = ast.parse(path.read_text())
    funcs = {n.name: n for n in mtree.body if isinstance(n, ast.FunctionDef)}
    seen, todo = set(), [func]
    while todo:
        f = todo.pop()
        if f in seen or f not in funcs:
            continue
        seen.add(f)
        for n in ast.walk(funcs[f]):
            if isinstance(n, ast.Name):
                if n.id == "job_rng":
                    return True
                todo.append(n.id)
            # a job that hands its seed to a library routine draws from it (e.g. dpkmeans' stand-in draws)
            if (
                isinstance(n, ast.Attribute)
                and n.attr == "seed"
                and isinstance(n.value, ast.Attribute)
                and n.value.attr == "params"
            ):
                return True
    return False


def test_fast_plans_are_the_plans_snakemake_builds(workdir):
    """The plans above take two parsing shortcuts (libyaml, each rules file translated once: workflow_dag's
    _fast_parsing); Snakemake without them plans the same jobs, params, inputs and outputs, here for the quick
    configuration, a source variant and a changed key (a second fast plan reuses the translated rules files)."""
    for variant in (None, UCI_HOUSEHOLD_SPDP, {"seed": CONFIG["seed"] + 1}):
        exact = plan(workdir, configfiles=QUICK, config=variant or {}, fast=False)
        fast = base_plan(workdir, variant)
        assert exact == fast and fast == plan(workdir, configfiles=QUICK, config=variant or {})
        assert len(exact) > 60


def test_seed_plans_exactly_the_jobs_that_draw_random_numbers(workdir):
    draws = _rules_drawing_random_numbers()
    before = base_plan(workdir)
    after = plan(workdir, configfiles=QUICK, config={"seed": CONFIG["seed"] + 1})
    planned = {k[0] for k in planned_after_change(before, after)} - {"all"}
    random_rules = {j.rule for j in before.values() if draws.get(j.rule)}
    assert planned == random_rules, (
        f"planned without drawing: {sorted(planned - random_rules)}; "
        f"drawing but not planned: {sorted(random_rules - planned)}"
    )
    # and the rules that get the seed are those whose job draws (no needless reruns)
    with_seed = {j.rule for j in before.values() if "seed" in j.param_values and j.param_values["seed"] is not None}
    assert with_seed == random_rules


def _edited_copy_plan(workdir_root: Path, rel: str) -> dict:
    """The quick plan of a fresh workflow copy in which ``src/dpgrid/<rel>`` got one more line. Compared with
    :func:`base_plan` of the unedited copy ``workdir``: a plan does not depend on where the copy is (params
    and inputs are relative or content hashes; test_plans_do_not_depend_on_the_copys_location)."""
    wd = copy_workflow(workdir_root)
    with open(wd / "src" / "dpgrid" / rel, "a") as fh:
        fh.write("\n# an edit\n")
    after = plan(wd, configfiles=QUICK)
    shutil.rmtree(wd)
    return after


def test_plans_do_not_depend_on_the_copys_location(workdir, tmp_path):
    assert planned_after_change(base_plan(workdir), plan(copy_workflow(tmp_path / "wf"), configfiles=QUICK)) == set()


@pytest.mark.parametrize(
    "rel", ["figures/style.py", "privacy/gaussian_loss/exact.py", "data/meter.py", "papers/classdp/figures.py"]
)
def test_module_edit_plans_exactly_the_jobs_importing_it(rel, workdir, tmp_path):
    before = base_plan(workdir)
    planned = {k[0] for k in planned_after_change(before, _edited_copy_plan(tmp_path / "wf", rel))} - {"all"}
    target = (REPO / "src" / "dpgrid" / rel).resolve()
    importing = set()
    for job in before.values():
        if job.rule == "all":
            continue
        script = _script_of(job.rule)
        if script and target in module_closure(script):
            importing.add(job.rule)
    assert importing, f"no rule imports {rel}?"
    assert planned == importing
    if rel == "figures/style.py":
        assert {"classdp_figure", "spdp_figure", "dpkmeans_figure", "blowfish_figure"} <= planned
    if rel == "papers/classdp/figures.py":
        assert planned == {"classdp_figure"}  # a plotting edit does not rerun the fits


@pytest.mark.parametrize("rel", ["data/synthetic_base.py", "data/sources.py"])
def test_meter_data_generator_edit_replans_no_download(rel, workdir, tmp_path):
    """Editing a meter data generator reruns meter data and what reads it, never a download or the feeders built
    from the downloads (the download rules' code is dpgrid.data.download_jobs, apart from the meter data job)."""
    before = base_plan(workdir)
    planned = {k[0] for k in planned_after_change(before, _edited_copy_plan(tmp_path / "wf", rel))} - {"all"}
    assert "meter_data" in planned
    downloads = {r for r in (k[0] for k in before) if r.startswith("download_")}
    assert downloads, "the quick plan has no download rule?"
    assert not planned & downloads, f"an edit of {rel} replans downloads: {sorted(planned & downloads)}"
    assert "grid_feeder" not in planned


def _script_of(rule: str) -> Path | None:
    for smk in rules_files():
        copy = re.search(rf"^use rule (\w+) as {rule} ", smk.read_text(), flags=re.M)
        if copy:  # `use rule A as B with:` runs A's script
            return _script_of(copy.group(1))
        m = re.search(rf"^rule {rule}:\n(.*?)(?=^rule |^use rule |\Z)", smk.read_text(), flags=re.M | re.S)
        if m:
            sm = re.search(r'script:\s*\n\s*"([^"]+)"', m.group(1))
            return (smk.parent / sm.group(1)).resolve() if sm else None
    return None


def test_import_closure_contains_every_module_a_job_module_loads():
    """The AST closure (provenance) is a superset of what Python actually imports for each script's module."""
    scripts = sorted((REPO / "workflow" / "scripts").rglob("*.py"))
    code = (
        "import sys, runpy, json\n"
        "from pathlib import Path\n"
        "mods = {}\n"
        "for s in sys.argv[1:]:\n"
        "    before = set(sys.modules)\n"
        "    src = Path(s).read_text().replace('run_script(snakemake', '(lambda *a: None)(None')\n"
        "    exec(compile(src, s, 'exec'), {'__name__': 'x'})\n"
        "    mods[s] = sorted(m for m in sys.modules if m.startswith('dpgrid'))\n"
        "print(json.dumps(mods))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *map(str, scripts)],
        capture_output=True,
        text=True,
        env=snakemake_env(),
        check=True,
    ).stdout
    import json

    loaded = json.loads(out)
    for s in scripts:
        closure = {str(p) for p in module_closure(s)}
        for mod in loaded[str(s)]:
            f = REPO / "src" / Path(*mod.split("."))
            f = f / "__init__.py" if f.is_dir() else f.with_suffix(".py")
            if mod in ("dpgrid.core.pipeline",) or str(f) in closure:
                continue
            # modules loaded by other scripts earlier in the same process are not this script's
            if any(mod in loaded[str(o)] for o in scripts if o < s):
                continue
            pytest.fail(f"{s.relative_to(REPO)} loads {mod}, which its computed closure misses")


def test_job_has_no_config():
    from dpgrid.core.pipeline import Job

    job = Job(rule="r", input={}, output={}, params={}, wildcards={})
    with pytest.raises(AttributeError, match="has no config"):
        job.config  # noqa: B018


def test_no_job_code_reads_the_config():
    offenders = []
    for f in (REPO / "src" / "dpgrid").rglob("*.py"):
        text = f.read_text()
        if re.search(r"\b(smk|job)\.config\b", text):
            offenders.append(str(f.relative_to(REPO)))
    assert not offenders, f"job code reading the config instead of params: {offenders}"


# ------------------------------------------------------------------------------------------------
# downloaded files: a change after the download is detected


def test_changed_download_is_detected_before_use(tmp_path):
    from dpgrid.data.download import DownloadError, verify_unchanged, write_digest

    f = tmp_path / "member.txt"
    f.write_text("a,b\n1,2\n")
    write_digest(f)
    verify_unchanged({f: None})
    f.write_text("a,b\n1,3\n")
    with pytest.raises(DownloadError, match=r"member.txt changed after it was downloaded"):
        verify_unchanged({f: None})
    pinned = tmp_path / "pinned.dss"
    pinned.write_text("x")
    with pytest.raises(DownloadError, match=r"pinned.dss changed after it was downloaded"):
        verify_unchanged({pinned: "0" * 64})


@pytest.mark.pipeline
def test_edited_feeder_file_reruns_the_feeder_and_stops_it(tmp_path, shared_data):
    """An edit of a downloaded IEEE 123 file (a declared input) reruns grid_feeder, which refuses it."""
    wd = copy_workflow(tmp_path / "wf")
    env = snakemake_env(DPGRID_MIRROR=str(shared_data), PYTHONPATH=str(wd / "src"))
    target = "resources/grid/ieee123.json"
    run = lambda *a: subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "1", *a],
        cwd=wd,  # noqa: E731
        capture_output=True,
        text=True,
        env=env,
    )
    first = run(target)
    assert first.returncode == 0, first.stderr[-2000:]
    loads = wd / "resources" / "downloads" / "ieee123" / "123Bus" / "IEEE123Loads.DSS"
    os.utime(loads, None)
    loads.write_text(loads.read_text().replace("kW=40", "kW=41", 1))
    dry = run("-n", target)
    assert re.search(r"^grid_feeder\s+1$", dry.stdout, flags=re.M), dry.stdout
    second = run(target)
    assert second.returncode != 0
    assert "IEEE123Loads.DSS changed after it was downloaded" in second.stderr


@pytest.mark.pipeline
def test_read_only_results_can_be_checked_but_not_written(shared_data):
    """An archived tree whose results/ is read-only: `snakemake -n`, `--summary` and `--list-params-changes`
    work (they write nothing); a run stops before its first job with the message naming results/."""
    import tempfile

    # a folder every user can enter (pytest's tmp_path is in a folder private to its user)
    base = Path(tempfile.mkdtemp(prefix="dpgrid-read-only-"))
    base.chmod(0o755)
    try:
        _check_read_only_results(base, shared_data)
    finally:
        (base / "wf" / "results").chmod(0o755)
        shutil.rmtree(base)


def _check_read_only_results(base: Path, shared_data: Path):
    wd = copy_workflow(base / "wf")
    (wd / "results").mkdir()
    (wd / "results").chmod(0o555)
    env = snakemake_env(DPGRID_MIRROR=str(shared_data), PYTHONPATH=str(wd / "src"), HOME=str(wd))
    prefix = []
    if os.geteuid() == 0:  # root writes anywhere: run Snakemake as an unprivileged user
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: cannot make a folder read-only")
        for p in [wd, *wd.rglob("*")]:
            if p != wd / "results" and not p.is_relative_to(wd / "results"):
                os.chown(p, 65534, 65534, follow_symlinks=False)
        prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]

    def run(*args):
        return subprocess.run(
            [*prefix, sys.executable, "-m", "snakemake", *args, *["--configfile", *QUICK]],
            cwd=wd,
            capture_output=True,
            text=True,
            env=env,
        )

    for check in (["-n"], ["--summary"], ["--list-params-changes"]):
        done = run(*check)
        assert done.returncode == 0, (check, done.stderr[-2000:])
    done = run("--cores", "1")
    assert done.returncode != 0
    assert "cannot write the pipeline's outputs to results/" in done.stderr
    assert not (wd / "resources").exists()  # no job ran


def test_where_a_download_came_from_is_not_a_rerun_trigger(workdir, monkeypatch, tmp_path):
    """A run without (or with another) DPGRID_MIRROR plans no download whose pinned SHA-256 is unchanged (the
    IEEE 123 files: the mirror holds the pinned files), while the job still receives the mirror in effect. A
    mirror holding different content (the UCI household excerpt, pinned on its own) does rerun the download."""
    ieee = ["resources/downloads/ieee123/123Bus/IEEE123Master.dss"]
    uci = ["resources/downloads/uci_household/household_power_consumption.txt"]
    plans = {}
    for name, mirror in (("shared", str(tmp_path / "mirror")), ("other", str(tmp_path / "elsewhere")), ("none", None)):
        if mirror is None:
            monkeypatch.delenv("DPGRID_MIRROR", raising=False)
        else:
            monkeypatch.setenv("DPGRID_MIRROR", mirror)
        plans[name] = plan(workdir, configfiles=QUICK, config=UCI_HOUSEHOLD_SPDP, targets=ieee + uci)
    key_ieee, key_uci = ("download_ieee123", ()), ("download_uci_household", ())
    assert planned_after_change(plans["shared"], plans["other"]) == set()
    assert planned_after_change(plans["shared"], plans["none"]) == {key_uci}
    assert plans["shared"][key_ieee].param_values["mirror"] == str(tmp_path / "mirror")
    assert plans["none"][key_ieee].param_values["mirror"] is None
    assert plans["shared"][key_uci].params != plans["none"][key_uci].params  # excerpt <-> full file


@pytest.mark.pipeline
def test_clone_with_copied_results_plans_nothing_until_the_code_changes(tmp_path, shared_data):
    """A fresh clone is newer than results copied into it (every script and module touched after the outputs):
    with the default workflow profile (profiles/default, rerun triggers without `code`) Snakemake plans nothing;
    without it, it reruns the jobs ("Code has changed"). An edit of a module a job imports still reruns that job
    (its code param)."""
    wd = copy_workflow(tmp_path / "wf")
    shutil.copytree(REPO / "profiles", wd / "profiles")
    env = snakemake_env(DPGRID_MIRROR=str(shared_data), PYTHONPATH=str(wd / "src"))
    target = "resources/grid/ieee123.json"

    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "snakemake", *args, target], cwd=wd, capture_output=True, text=True, env=env
        )

    first = run("--cores", "1")
    assert first.returncode == 0, first.stderr[-2000:]
    assert "Using workflow specific profile profiles/default" in first.stderr
    later = max(p.stat().st_mtime for p in (wd / "resources").rglob("*") if p.is_file()) + 60
    for p in [wd / "Snakefile", *(wd / "workflow").rglob("*"), *(wd / "src").rglob("*")]:
        if p.is_file():
            os.utime(p, (later, later))  # as a clone made after the results
    clone = run("-n")
    assert clone.returncode == 0 and "Nothing to be done" in clone.stdout + clone.stderr, clone.stdout
    without = run("-n", "--workflow-profile", "none")
    assert re.search(r"^grid_feeder\s+1$", without.stdout, flags=re.M), without.stdout  # the case the profile fixes
    feeders = wd / "src" / "dpgrid" / "grid" / "feeders.py"
    feeders.write_text(feeders.read_text() + "\n# an edit\n")
    edited = run("-n")
    assert re.search(r"^grid_feeder\s+1$", edited.stdout, flags=re.M), edited.stdout
    assert not re.search(r"^download_ieee123\s", edited.stdout, flags=re.M)


def test_users_csv_is_tracked_by_content(workdir, tmp_path):
    """Replacing a `source: csv` readings file with other content and an OLDER modification time (which the
    mtime trigger misses) changes meter_data's params, so the experiment reruns; the same content under another
    modification time does not."""
    readings = tmp_path / "readings.csv"
    readings.write_text("meter_id,timestamp,kw\nA,2020-03-02 00:00:00,0.5\n")
    spec = {**OTHER_SOURCE["csv"], "readings": str(readings)}
    variant = {"data": {"experiments": {"dpkmeans": spec}}}
    target = ["resources/quick/meters/dpkmeans/readings.csv"]  # the quick run (run.name quick)
    before = plan(workdir, configfiles=QUICK, config=variant, targets=target)
    old = readings.stat().st_mtime - 3600
    os.utime(readings, (old, old))
    same = plan(workdir, configfiles=QUICK, config=variant, targets=target)
    assert planned_after_change(before, same) == set()
    readings.write_text("meter_id,timestamp,kw\nA,2020-03-02 00:00:00,0.7\n")
    os.utime(readings, (old - 3600, old - 3600))
    after = plan(workdir, configfiles=QUICK, config=variant, targets=target)
    assert planned_after_change(before, after) == {("meter_data", (("drep", ""), ("experiment", "dpkmeans")))}


def test_int_and_float_spellings_of_a_value_plan_nothing(workdir):
    """`eps_c: 30` for the shipped `30.0` (and `[1, 5, 30]` for `[1.0, 5.0, 30.0]`) is the same value: no job is
    planned, while another value still reruns the jobs reading it."""
    spelled = {"dpkmeans": {"release": {"eps_c": 30}, "fig9": {"left_eps_calibrated": [1, 5, 30]}}}
    assert get(CONFIG, ("dpkmeans", "release", "eps_c")) == 30.0 and isinstance(
        get(CONFIG, ("dpkmeans", "release", "eps_c")), float
    )
    assert planned_after_change(base_plan(workdir), plan(workdir, configfiles=QUICK, config=spelled)) == set()
    other = plan(workdir, configfiles=QUICK, config={"dpkmeans": {"release": {"eps_c": 31}}})
    assert planned_after_change(base_plan(workdir), other)


@pytest.mark.parametrize("paper", ["classdp", "spdp", "dpkmeans"])
def test_stand_in_edit_reruns_no_other_papers_jobs(paper, workdir, tmp_path):
    """An edit of a paper's stand-in generator reruns that paper's jobs and the meter_data job of the experiment
    that reads the stand-in (its code param is per job: dpgrid.data.sources.source_module), nothing else."""
    from dpgrid.core.papers import data_source_modules

    after = _edited_copy_plan(tmp_path / "wf", f"papers/{paper}/standin.py")
    planned = planned_after_change(base_plan(workdir), after) - {k for k in after if k[0] == "all"}
    module = f"dpgrid.papers.{paper}.standin"
    sources = {s for s, m in data_source_modules().items() if m == module}
    experiments = {e for e, spec in CONFIG["data"]["experiments"].items() if spec["source"] in sources}
    assert experiments, f"no experiment reads {module} in the quick configuration?"
    meter_data = {k for k in planned if k[0] == "meter_data"}
    assert {dict(k[1])["experiment"] for k in meter_data} == experiments
    others = {k[0] for k in planned - meter_data if Path(after[k].snakefile).parent.name != paper}
    assert others == set(), f"an edit of {module} reruns jobs of other papers or the framework: {sorted(others)}"
    assert planned - meter_data, f"an edit of {module} reruns none of {paper}'s own jobs?"
