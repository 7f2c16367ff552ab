"""The config is validated before any rule runs; bad values stop the run naming key and value."""

import copy
import subprocess
import sys

import pytest
import yaml

from dpgrid.core.config import ConfigError, load_config_file, merge_config, replace_data_sources, validate_config
from tests.helpers.repo import REPO, snakemake_env

SCHEMA = str(REPO / "workflow" / "schemas" / "config.schema.yaml")


def validate(cfg, schema):
    validate_config(cfg, schema)


def load(name="config.yaml"):
    return yaml.safe_load((REPO / "config" / name).read_text())


deep_merge = merge_config  # Snakemake's merge of config files (dpgrid.core.config)


def with_value(cfg, path, value):
    cfg = copy.deepcopy(cfg)
    node = cfg
    keys = path.split(".")
    for k in keys[:-1]:
        node = node[k]
    node[keys[-1]] = value
    return cfg


def test_shipped_configs_are_valid():
    validate(load(), SCHEMA)
    validate(deep_merge(load(), load("quick.yaml")), SCHEMA)


# (dotted key, bad value, text that must appear in the error besides the key's last part)
BAD_VALUES = [
    ("seed", -1, "-1"),
    ("seed", "abc", "abc"),
    ("spdp.privacy.epsilon", -0.5, "-0.5"),
    ("spdp.privacy.epsilon", 0, "0"),
    ("spdp.privacy.delta", 1.5, "1.5"),
    ("spdp.privacy.delta", 0, "0"),
    ("spdp.psd.n_points", "288", "288"),
    ("spdp.mechanism.beta", "half", "half"),
    ("data.experiments.dpkmeans.n_residential", -5, "-5"),
    ("data.experiments.spdp.source", "pecan_street", "pecan_street"),
    ("spdp.targets", ["fig99"], "fig99"),
    ("blowfish.epsilon", -0.5, "-0.5"),
    ("classdp.forecast.fig3_epsilon", -0.8, "-0.8"),
    ("dpkmeans.release.eps_c", -30.0, "-30.0"),
    ("dpkmeans.release.delta_c", 1.2, "1.2"),
    ("dpkmeans.release.delta_c", "small", "small"),
    ("classdp.targets", ["fig99"], "fig99"),
    ("blowfish.zero_sweep.examples", [], "[]"),  # the example days of the lambda figure: at least one
]


@pytest.mark.parametrize("path,value,shown", BAD_VALUES, ids=[f"{p}={v!r}" for p, v, _ in BAD_VALUES])
def test_bad_value_is_rejected_naming_key_and_value(path, value, shown):
    with pytest.raises(ConfigError) as err:
        validate(with_value(load(), path, value), SCHEMA)
    msg = str(err.value)
    assert path.split(".")[-1] in msg
    assert shown in msg
    assert len(msg.splitlines()) <= 3  # the key, value and reason; no schema dump


@pytest.mark.parametrize("path", ["bogus", "spdp.bogus", "data.experiments.spdp.bogus", "spdp.privacy.bogus"])
def test_unknown_key_is_rejected(path):
    with pytest.raises(ConfigError) as err:
        validate(with_value(load(), path, 1), SCHEMA)
    msg = str(err.value)
    assert "unknown key 'bogus'" in msg and len(msg.splitlines()) <= 3


def test_bad_config_stops_the_run_before_any_job(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("spdp:\n  privacy:\n    epsilon: -1.0\n")
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--configfile", str(bad)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=snakemake_env(),
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "invalid config" in out and "spdp.privacy.epsilon = -1.0" in out
    assert f"set in {bad}" in out  # the file that set the value
    assert "Job stats" not in out


def test_yaml_syntax_error_names_the_file_and_line(tmp_path):
    bad = tmp_path / "broken.yaml"
    bad.write_text("spdp:\n  privacy:\n    epsilon: [0.5\n")
    with pytest.raises(ConfigError, match=r"broken\.yaml: YAML syntax error \(line \d+, column \d+\)"):
        load_config_file(bad)


def test_overlay_switching_a_data_source_replaces_its_spec(tmp_path):
    """A short overlay setting data.experiments.<exp>.source replaces that experiment's spec (no leftover keys)."""
    over = tmp_path / "my.yaml"
    over.write_text(
        "data:\n  experiments:\n    spdp:\n      source: csv\n      start: '2020-03-02'\n"
        "      days: 100\n      step_minutes: 5\n      readings: my_readings.csv\n      meters: null\n"
    )
    cfg = deep_merge(deep_merge(load(), load("quick.yaml")), yaml.safe_load(over.read_text()))
    with pytest.raises(ConfigError):  # a key-by-key merge keeps n_residential next to readings
        validate(cfg, SCHEMA)
    replace_data_sources(cfg, [REPO / "config" / "config.yaml", REPO / "config" / "quick.yaml", over])
    validate(cfg, SCHEMA)
    assert cfg["data"]["experiments"]["spdp"]["readings"] == "my_readings.csv"
    assert "n_residential" not in cfg["data"]["experiments"]["spdp"]
    # an experiment the overlay does not name keeps the merged spec (quick.yaml's days included)
    assert (
        cfg["data"]["experiments"]["dpkmeans"]["days"] == load("quick.yaml")["data"]["experiments"]["dpkmeans"]["days"]
    )


def test_data_doc_describes_the_overlay_as_the_code_does():
    """Issue 28 (5): docs/data.md said an overlay cannot remove the synthetic keys, while README and
    replace_data_sources (test above) replace the spec as a whole."""
    doc = " ".join((REPO / "docs" / "data.md").read_text(encoding="utf-8").split())
    assert "cannot remove the synthetic keys" not in doc
    assert "is **replaced as a whole** by the last config file that sets its `source`" in doc


@pytest.mark.parametrize("epsilon", [1, 1.0, 2.5])
def test_spdp_epsilon_of_one_or_more_stops_before_any_job(epsilon):
    """The spdp jobs compute the classical calibration (valid for epsilon < 1 only): epsilon >= 1 is refused at
    validation, naming the key, the value and why, instead of failing in spdp_claims after every spdp job ran."""
    with pytest.raises(ConfigError) as err:
        validate(with_value(load(), "spdp.privacy.epsilon", epsilon), SCHEMA)
    msg = str(err.value)
    assert f"spdp.privacy.epsilon = {epsilon!r} must be below 1" in msg and "classical" in msg
    validate(with_value(load(), "spdp.privacy.epsilon", 0.999), SCHEMA)  # the boundary: below 1 is fine


@pytest.mark.parametrize(
    "path,text,written",
    [
        ("spdp.privacy.epsilon", "1.0e6", "1.0e+6"),
        ("spdp.privacy.delta", "1e-12", "1.0e-12"),
        ("dpkmeans.release.eps_c", "3e1", "3.0e+1"),
    ],
)
def test_number_that_yaml_reads_as_text_says_how_to_write_it(tmp_path, path, text, written):
    """YAML 1.1 (PyYAML) reads 1.0e6 and 1e-12 as strings: the message says so and gives the spelling it reads
    as a number, which (checked here with the same loader) is the same value."""
    keys = path.split(".")
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(
        "".join(f"{'  ' * i}{k}:\n" for i, k in enumerate(keys[:-1])) + f"{'  ' * (len(keys) - 1)}{keys[-1]}: {text}\n"
    )
    read = load_config_file(overlay)
    node = read
    for k in keys:
        node = node[k]
    assert node == text  # YAML reads it as text
    with pytest.raises(ConfigError) as err:
        validate(deep_merge(load(), read), SCHEMA)
    msg = str(err.value)
    assert f"YAML 1.1 reads {text} as text" in msg and f"write {written}" in msg
    assert yaml.safe_load(f"v: {written}")["v"] == float(text)  # the advice gives the intended number


def test_number_normalisation_leaves_every_shipped_config_as_written():
    """normalise_numbers writes numbers as config/config.yaml does; every shipped config file (and the merged
    quick config) is unchanged by it, value and type, so their jobs' params (compared by repr) do not move."""
    from dpgrid.core.config import normalise_numbers

    base = load()
    for path in sorted((REPO / "config").glob("*.yaml")):
        cfg = load(path.name) or {}
        before = repr(cfg)
        assert repr(normalise_numbers(copy.deepcopy(cfg), base)) == before, path.name
    merged = deep_merge(base, load("quick.yaml"))
    assert repr(normalise_numbers(copy.deepcopy(merged), base)) == repr(merged)
    spelled = normalise_numbers({"dpkmeans": {"release": {"eps_c": 30, "delta_c": 1}}, "seed": 7.0}, base)
    assert repr(spelled) == repr({"dpkmeans": {"release": {"eps_c": 30.0, "delta_c": 1.0}}, "seed": 7})


def test_load_config_merges_validates_and_replaces_sources_as_the_workflow_does(tmp_path):
    """One config merge for the command-line tools and the tests (dpgrid.core.config.load_config)."""
    from dpgrid.core.config import load_config

    base = REPO / "config" / "config.yaml"
    quick = load_config([base, REPO / "config" / "quick.yaml"])
    assert quick == deep_merge(quick, {})  # a plain nested dict
    assert quick["seed"] == load("quick.yaml").get("seed", load()["seed"])
    overlay = tmp_path / "csv.yaml"
    overlay.write_text(
        "data:\n  experiments:\n    spdp:\n      source: csv\n      readings: r.csv\n      start: '2020-03-02'\n"
        "      days: 7\n      step_minutes: 5\n"
    )
    cfg = load_config([base, overlay])
    assert cfg["data"]["experiments"]["spdp"]["source"] == "csv"
    assert "mean_kw" not in cfg["data"]["experiments"]["spdp"]  # replaced as a whole, not merged
    bad = tmp_path / "bad.yaml"
    bad.write_text("blowfish:\n  epsilon: -1\n")
    with pytest.raises(ConfigError, match=r"blowfish\.epsilon.*bad\.yaml"):
        load_config([base, bad])


# ---- the papers' stand-in data sources: their keys come from workflow/papers/<paper>/<source>.source.schema.yaml


def test_stand_in_sources_take_their_keys_from_their_papers_schema_files():
    from dpgrid.core.config import schema_document
    from dpgrid.core.papers import data_source_modules

    data = schema_document(REPO / "workflow" / "schemas" / "data.schema.yaml")
    exp = data["$defs"]["experiment"]
    sources = exp["properties"]["source"]["enum"]
    assert set(data_source_modules()) <= set(sources)
    raw = (REPO / "workflow" / "schemas" / "data.schema.yaml").read_text()
    for source in data_source_modules():
        assert source not in raw  # the data layer's file names no paper source
        rule = next(r["then"] for r in exp["allOf"] if r["if"]["properties"]["source"]["const"] == source)
        assert set(rule["required"]) <= set(exp["properties"])
    # one source's keys are refused under another source, its own are accepted
    cfg = load()
    cfg["data"]["experiments"]["spdp"]["small_clusters"] = [8, 12]  # dpkmeans_standin's key under spdp_standin
    with pytest.raises(ConfigError, match=r"experiments\.spdp = 'small_clusters' is not valid"):
        validate(cfg["data"], REPO / "workflow" / "schemas" / "data.schema.yaml")
    cfg = load()
    cfg["data"]["experiments"]["dpkmeans"]["step_minutes"] = 120  # allowed by the data schema, not by this source
    with pytest.raises(ConfigError, match=r"experiments\.dpkmeans\.step_minutes = 120 is not one of"):
        validate(cfg, SCHEMA)


def _workflow_copy(tmp_path):
    import shutil

    for folder in ("workflow/schemas", "workflow/papers"):
        shutil.copytree(REPO / folder, tmp_path / folder)
    return tmp_path / "workflow"


def test_a_stand_in_source_without_its_schema_file_or_with_a_conflicting_key_is_an_error(tmp_path):
    from dpgrid.core.config import schema_document

    wf = _workflow_copy(tmp_path)
    frag = wf / "papers" / "spdp" / "spdp_standin.source.schema.yaml"
    text = frag.read_text()
    frag.unlink()
    with pytest.raises(ConfigError, match=r"spdp_standin\.source\.schema\.yaml: missing"):
        schema_document(wf / "schemas" / "data.schema.yaml")
    spec = yaml.safe_load(text)
    spec["properties"]["n_residential"] = {"type": "string"}  # already defined (differently) by data.schema.yaml
    frag.write_text(yaml.safe_dump(spec))
    with pytest.raises(ConfigError, match=r"key 'n_residential' is defined already, differently"):
        schema_document(wf / "schemas" / "data.schema.yaml")
    spec = yaml.safe_load(text)
    spec["required"].append("undefined_key")
    frag.write_text(yaml.safe_dump(spec))
    with pytest.raises(ConfigError, match=r"\['undefined_key'\] of data source 'spdp_standin' have no definition"):
        schema_document(wf / "schemas" / "data.schema.yaml")


def test_data_source_must_name_an_experiment_and_may_name_a_new_one():
    cfg = load()
    bad = with_value(cfg, "spdp.data_source", "my_home")
    with pytest.raises(ConfigError, match=r"spdp\.data_source = 'my_home' names no entry of data\.experiments"):
        validate(bad, SCHEMA)
    # an experiment of the user's own (any name) is an entry a paper may read
    bad["data"]["experiments"]["my_home"] = {
        "source": "csv",
        "start": "2020-03-02",
        "days": 7,
        "step_minutes": 15,
        "readings": "my_readings.csv",
    }
    validate(bad, SCHEMA)
    nested = with_value(cfg, "classdp.forecast.data_source", "nowhere")
    with pytest.raises(ConfigError, match=r"classdp\.forecast\.data_source = 'nowhere' names no entry"):
        validate(nested, SCHEMA)
