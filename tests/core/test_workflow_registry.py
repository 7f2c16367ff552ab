"""The workflow's registry (dpgrid.core.workflow_registry): what the rules files register, and the lists the
Snakefile derives from it (``all``'s targets, the costs' benchmark files and rule specs), on stand-in rules."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpgrid.core.workflow_registry import RegistryError, WorkflowRegistry


def rule(name, benchmark, *, threads=1, mem_mb=200, runtime=1, snakefile="workflow/papers/p/p.smk"):
    """A stand-in of Snakemake's Rule with what the registry reads."""
    return SimpleNamespace(
        name=name,
        benchmark=benchmark,
        snakefile=snakefile,
        resources={"_cores": threads, "_nodes": 1, "mem_mb": mem_mb, "runtime": runtime},
        log=[f"logs/{name}.log"],
        has_wildcards=lambda: bool(benchmark and re.search(r"\{\w+", benchmark)),
    )


names = st.text("abcdefgh_", min_size=1, max_size=8)


@given(targets=st.dictionaries(names, st.lists(names, min_size=1, max_size=3), min_size=1, max_size=6), data=st.data())
def test_targets_keep_their_files_and_order(targets, data):
    reg = WorkflowRegistry()
    reg.register_targets("p", {k: (v[0] if len(v) == 1 else v) for k, v in targets.items()})
    chosen = data.draw(st.permutations(list(targets)))
    assert reg.paper_targets("p", chosen) == [f for name in chosen for f in targets[name]]
    with pytest.raises(RegistryError, match="registered twice"):
        reg.register_targets("p", {chosen[0]: "x"})
    with pytest.raises(RegistryError, match=r"p\.targets names unknown target\(s\) \['zz9'\]"):
        reg.paper_targets("p", [*chosen, "zz9"])


def test_benchmarks_one_file_per_job():
    reg = WorkflowRegistry()
    sweep = rule("sweep", "benchmarks/sweep/{rho,[0-9.]+}_{k}.tsv")
    reg.register_benchmarks(SimpleNamespace(rule=sweep), {"rho": "0.5", "k": "1"}, {"rho": "2", "k": "3"})
    assert reg.benchmarks == {"sweep": ["benchmarks/sweep/0.5_1.tsv", "benchmarks/sweep/2_3.tsv"]}
    empty = rule("empty_sweep", "benchmarks/e/{x}.tsv")
    reg.register_benchmarks(SimpleNamespace(rule=empty))  # a sweep without points in this configuration: no job
    assert reg.benchmarks["empty_sweep"] == []
    download = rule("download", "benchmarks/download/d.tsv")
    reg.on_demand_rules.add("download")
    plain = rule("plain", "benchmarks/plain/plain.tsv")
    target = rule("all", None)
    rules = [target, sweep, empty, download, plain]
    assert reg.job_benchmarks(rules) == sorted(["benchmarks/plain/plain.tsv", *reg.benchmarks["sweep"]])
    reg.register_benchmarks(SimpleNamespace(rule=download))  # used by this configuration: measured
    assert "benchmarks/download/d.tsv" in reg.job_benchmarks(rules)
    with pytest.raises(RegistryError, match="unregistered has wildcards"):
        reg.job_benchmarks([*rules, rule("unregistered", "benchmarks/u/{x}.tsv")])
    with pytest.raises(RegistryError, match="no_benchmark .* has no benchmark directive"):
        reg.job_benchmarks([*rules, rule("no_benchmark", None)])


def test_rule_specs_are_what_the_rules_declare():
    reg = WorkflowRegistry()
    callable_mem = SimpleNamespace(is_evaluable=lambda: True, _evaluator=lambda wc, inputs: 321)
    rules = [
        rule("all", None),
        rule("a", "benchmarks/a/a.tsv", threads=2, mem_mb=500, runtime=7, snakefile="workflow/papers/p/grid.smk"),
        rule("b", "benchmarks/b/b.tsv", mem_mb=callable_mem),
    ]
    specs = reg.rule_specs(rules)
    assert [s["name"] for s in specs] == ["a", "b"]
    assert specs[0] == {
        "name": "a",
        "experiment": "grid",
        "benchmark": "benchmarks/a/a.tsv",
        "threads": 2,
        "mem_mb": 500,
        "runtime": 7,
        "log": "logs/a.log",
    }
    assert specs[1]["mem_mb"] == 321 and specs[1]["threads"] == 1


def test_registries_are_per_instance():
    a, b = WorkflowRegistry(), WorkflowRegistry()
    a.register_claims("c.csv")
    a.register_privacy_audit("p.csv")
    a.register_data_used("x")
    a.not_measured.add("peers")
    assert (b.claims, b.privacy_audits, b.data_used, b.not_measured) == ([], [], set(), {"all", "pipeline_costs"})


def test_spreads_are_named_once_with_values_apart_from_keys():
    reg = WorkflowRegistry()
    assert reg.register_spread("p", "t2", "results/{drep}{nrep}p/t2.csv", ["series"], ["mean"], "T2") == "p/t2"
    assert reg.spreads["p/t2"] == {
        "pattern": "results/{drep}{nrep}p/t2.csv",
        "keys": ["series"],
        "values": ["mean"],
        "title": "T2",
    }
    with pytest.raises(RegistryError, match="'p/t2' registered twice"):
        reg.register_spread("p", "t2", "x.csv", ["k"], ["v"], "")
    with pytest.raises(RegistryError, match="letters, digits"):
        reg.register_spread("p", "t/2", "x.csv", ["k"], ["v"], "")
    with pytest.raises(RegistryError, match="differ from the keys"):
        reg.register_spread("p", "t3", "x.csv", ["k"], ["k", "v"], "")
    with pytest.raises(RegistryError, match="must be given"):
        reg.register_spread("p", "t4", "x.csv", ["k"], [], "")
    reg.register_over_seeds_targets(["a.pdf", "a.png"])
    assert reg.over_seeds_targets == ["a.pdf", "a.png"]
