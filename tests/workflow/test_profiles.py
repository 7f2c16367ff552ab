"""The SLURM profile (workflow/profiles/slurm) and the results digest tool (.ci/results_digest.py).

The profile is run for real by .ci/check_slurm on a one-node SLURM cluster (CI); these tests check
what can be checked without one: the profile's keys, the account/partition expressions, and that its
set-resources block is each rule's declaration plus the Snakemake wrapper's overhead. See
docs/cluster.md.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import subprocess
import sys

import pytest
import yaml

from tests.helpers.repo import REPO

PROFILES = REPO / "workflow" / "profiles"
SLURM = PROFILES / "slurm"
DIGEST = REPO / ".ci" / "results_digest.py"


def load_profile(name: str) -> dict:
    return yaml.safe_load((PROFILES / name / "config.v8+.yaml").read_text())


def snakemake_options() -> set[str]:
    """Long options of this snakemake, including those of the installed executor plugins."""
    from snakemake.cli import get_argument_parser

    return {opt for action in get_argument_parser()._actions for opt in action.option_strings}


def job_overhead():
    spec = importlib.util.spec_from_file_location("job_overhead", SLURM / "job_overhead.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def evaluate(name: str, expression: str, input=(), wildcards=None):
    """A resource expression evaluated the way Snakemake evaluates --default/--set-resources values."""
    from snakemake.iocontainers import Wildcards
    from snakemake.resources import Resource

    wc = Wildcards(fromdict=wildcards or {})
    return Resource.cli_evaluator(name, expression, wildcards=wc, input=list(input), attempt=1, async_run=None)


def test_only_the_slurm_profile_is_shipped():
    assert sorted(p.name for p in PROFILES.iterdir()) == ["slurm"]


def test_slurm_profile_keys():
    prof = load_profile("slurm")
    assert prof["executor"] == "slurm"
    # squeue works with and without accounting (sacct needs slurmdbd)
    assert prof["slurm-status-command"] == "squeue"
    assert prof["jobs"] >= 10 and prof["latency-wait"] >= 30 and prof["retries"] >= 1
    assert not any(k.startswith("cluster-generic") for k in prof)
    options = snakemake_options()
    plugin = "--slurm-status-command" in options
    unknown = {k for k in prof if (plugin or not k.startswith("slurm-")) and f"--{k}" not in options}
    assert not unknown, f"slurm profile keys snakemake does not know: {unknown}"


@pytest.mark.parametrize(
    ("resource", "variable"), [("slurm_account", "SBATCH_ACCOUNT"), ("slurm_partition", "SBATCH_PARTITION")]
)
def test_account_and_partition_come_from_sbatch_variables(monkeypatch, resource, variable):
    """The default resource is sbatch's own variable when set and empty when not (the plugin then guesses
    the account or passes none, and uses the cluster's default partition): no placeholder that fails."""
    expression = load_profile("slurm")["default-resources"][resource]
    monkeypatch.setenv(variable, "proj-42")
    assert evaluate(resource, expression) == "proj-42"
    monkeypatch.delenv(variable)
    assert evaluate(resource, expression) == ""


def test_set_resources_block_is_current():
    """The profile's set-resources block is what job_overhead.py writes from the rules' declarations."""
    jo = job_overhead()
    assert (
        load_profile("slurm")["set-resources"] == yaml.safe_load(jo.render(jo.set_resources_block()))["set-resources"]
    ), (
        "rules changed their resources: regenerate the block with `python workflow/profiles/slurm/job_overhead.py --write`"
    )


def test_set_resources_adds_the_wrapper_to_what_snakemake_reads_from_each_rule(workflow_copy):
    """Snakemake's own resource objects, read here as the executor reads them (job_overhead.py reads the loaded
    workflow too, but unwraps the declarations into text): every rule that runs as a SLURM job (as
    Snakemake loads the workflow: resources declared, not a local rule) has an entry, and each numeric
    entry is Snakemake's declared value plus the overhead; meter_data's callable is the same function plus it."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    jo = job_overhead()
    block = load_profile("slurm")["set-resources"]
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
            wf = api.workflow(
                resource_settings=ResourceSettings(cores=1),
                config_settings=ConfigSettings(configfiles=[workflow_copy / "config" / "quick.yaml"]),
                snakefile=workflow_copy / "Snakefile",
                workdir=workflow_copy,
            )._workflow
            rules = {r.name: r for r in wf.rules}
            remote = {n for n, r in rules.items() if "mem_mb" in r.resources and n not in wf._localrules}
    assert remote == set(block), f"rules without an entry: {remote - set(block)}; stale entries: {set(block) - remote}"
    assert {"download_uci_household", "download_uci_eld", "download_ieee123"} <= set(rules) - remote
    for name in remote:
        for resource, overhead in (("mem_mb", jo.WRAPPER_MEM_MB), ("runtime", jo.WRAPPER_RUNTIME_MIN)):
            declared = rules[name].resources[resource]._value
            entry = block[name][resource]
            if callable(declared):
                assert isinstance(entry, str) and entry.endswith(f") + {overhead}") and "(list(input)" in entry, (
                    name,
                    entry,
                )
            else:
                assert entry == declared + overhead, (name, resource, entry, declared)
    # the meter_data expressions evaluate to the declared functions plus the overhead
    from dpgrid.data.resources import meter_data_mem_mb, meter_data_runtime_min

    for resource, func, overhead in (
        ("mem_mb", meter_data_mem_mb, jo.WRAPPER_MEM_MB),
        ("runtime", meter_data_runtime_min, jo.WRAPPER_RUNTIME_MIN),
    ):
        assert (
            evaluate(resource, block["meter_data"][resource], wildcards={"experiment": "none"}) == func([]) + overhead
        )


def test_slurm_meter_data_memory_sizes_a_synthetic_source_from_its_config():
    """The profile's meter_data memory (an expression of input and wildcards only) sizes a source that reads no
    file from its data.experiments entry (registered when data.smk loads), as the rule's own declaration does."""
    from dpgrid.data import resources

    jo = job_overhead()
    big = {"source": "synthetic", "n_residential": 20000, "n_commercial": 0, "days": 28, "step_minutes": 15}
    resources.register_experiments({"big": big, "small": {**big, "n_residential": 1}})
    try:
        entry = load_profile("slurm")["set-resources"]["meter_data"]["mem_mb"]
        got = evaluate("mem_mb", entry, wildcards={"experiment": "big"})
        assert got == resources.meter_data_mem_mb([], big) + jo.WRAPPER_MEM_MB > resources.SYNTHETIC_MEM_MB + 300
        assert evaluate("mem_mb", entry, wildcards={"experiment": "small"}) == resources.SYNTHETIC_MEM_MB + 300
    finally:
        resources.register_experiments({})


# ---- results_digest ------------------------------------------------------------------------------


def digest(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(DIGEST), *args], capture_output=True, text=True)


def test_results_digest_detects_a_changed_byte(tmp_path):
    a = tmp_path / "a"
    (a / "sub").mkdir(parents=True)
    (a / "t.csv").write_bytes(b"x,y\n1,2\n")
    (a / "sub" / "fig.png").write_bytes(bytes(range(256)))
    (a / ".hidden.tmp.csv").write_bytes(b"left behind")
    assert digest("write", str(a), str(tmp_path / "a.sha256")).returncode == 0
    lines = (tmp_path / "a.sha256").read_text().splitlines()
    assert [line.split("  ")[1] for line in lines] == [".hidden.tmp.csv", "sub/fig.png", "t.csv"]

    same = digest("compare", str(tmp_path / "a.sha256"), str(a))
    assert same.returncode == 0 and "3 identical" in same.stdout

    b = tmp_path / "b"
    subprocess.run(["cp", "-r", str(a), str(b)], check=True)
    png = bytearray((b / "sub" / "fig.png").read_bytes())
    png[100] ^= 1
    (b / "sub" / "fig.png").write_bytes(bytes(png))
    (b / "new.csv").write_text("z\n")
    (b / "t.csv").unlink()
    res = digest("compare", str(tmp_path / "a.sha256"), str(b))
    assert res.returncode == 1
    assert "differing: sub/fig.png" in res.stdout
    assert "added (only in B): new.csv" in res.stdout
    assert "missing (only in A): t.csv" in res.stdout
    assert "1 identical, 1 differing, 1 added, 1 missing" in res.stdout


def test_results_digest_errors(tmp_path):
    assert digest("compare", str(tmp_path / "nope"), str(tmp_path)).returncode == 2
    (tmp_path / "bad.sha256").write_text("not a digest line\n")
    res = digest("compare", str(tmp_path / "bad.sha256"), str(tmp_path))
    assert res.returncode == 2 and "bad.sha256:1" in res.stderr
    (tmp_path / "empty").mkdir()
    assert digest("compare", str(tmp_path / "empty"), str(tmp_path / "empty")).returncode == 1


def test_results_digest_compares_a_selection_and_a_run_of_fewer_targets(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for root in (a, b):
        (root / "replicates" / "d1").mkdir(parents=True)
        (root / "claims.csv").write_text("claim\n")
        (root / "replicates" / "d1" / "claims.csv").write_text("claim d1\n")
    (a / "fig.pdf").write_bytes(b"%PDF")  # built by A's run only

    assert digest("compare", str(a), str(b)).returncode == 1  # fig.pdf missing from B
    fewer = digest("compare", str(a), str(b), "--a-may-have-more")
    assert fewer.returncode == 0 and "2 identical, 0 differing, 0 added, 1 missing (allowed" in fewer.stdout
    only = digest("compare", str(a), str(b), "--only", "replicates/*")
    assert only.returncode == 0 and "1 identical, 0 differing, 0 added, 0 missing" in only.stdout
    skip = digest("compare", str(a), str(b), "--skip", "*.pdf")
    assert skip.returncode == 0 and "2 identical" in skip.stdout

    # what B has and A has not, or has otherwise, fails under every selection
    (b / "replicates" / "d1" / "claims.csv").write_text("claim d1 changed\n")
    for extra in ([], ["--a-may-have-more"], ["--only", "replicates/*"]):
        res = digest("compare", str(a), str(b), *extra)
        assert res.returncode == 1 and "differing: replicates/d1/claims.csv" in res.stdout
    (b / "replicates" / "d1" / "claims.csv").write_text("claim d1\n")
    (b / "extra.csv").write_text("x\n")
    res = digest("compare", str(a), str(b), "--a-may-have-more")
    assert res.returncode == 1 and "added (only in B): extra.csv" in res.stdout
    # a selection that leaves nothing in common compares nothing: a failure, not a pass
    assert digest("compare", str(a), str(b), "--only", "nothing/*", "--a-may-have-more").returncode == 1
    assert digest("compare", str(a), str(tmp_path / "empty_b"), "--a-may-have-more").returncode == 2
    (tmp_path / "empty_b").mkdir()
    assert digest("compare", str(a), str(tmp_path / "empty_b"), "--a-may-have-more").returncode == 1
    assert digest("compare", str(a), str(b), "--only").returncode == 2
    assert digest("compare", str(a), str(b), "--bogus").returncode == 2
