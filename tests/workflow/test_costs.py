"""Pipeline costs (dpgrid.core.costs) and the rules' benchmark/threads/resources declarations."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from dpgrid.core.artifact import embedded
from dpgrid.core.costs import (
    CostsError,
    RuleSpec,
    attribute,
    collect_costs,
    experiment_costs,
    pattern_regex,
    read_benchmark,
    rule_costs,
)
from dpgrid.core.job_counts import CONFIGURATIONS, parse_job_counts, planned_jobs
from tests.helpers.repo import REPO, rules_files

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def bench(path: Path, s: float, rss: float, out: float = 1.0, cpu: float | None = None) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        HEADER + f"{s:.2f}\t0:00:00\t{rss:.2f}\t900\t1\t1\t0.00\t{out:.2f}\t90\t{cpu if cpu is not None else s:.2f}\n"
    )
    return str(path)


SPECS = [
    RuleSpec("fit", "classdp", "{root}/fit/{setting,synthetic|forecast}_rho{rho}.tsv", 1, 500, 2),
    RuleSpec("figure", "classdp", "{root}/figure/{fig}.tsv", 1, 400, 1),
    RuleSpec("release", "spdp", "{root}/release/release.tsv", 1, 300, 1),
]


def specs_for(root: Path) -> list[RuleSpec]:
    return [
        RuleSpec(s.name, s.experiment, s.benchmark.replace("{root}", str(root)), s.threads, s.mem_mb, s.runtime)
        for s in SPECS
    ]


def test_pattern_regex_respects_constraints_and_path_parts():
    rx = pattern_regex("b/fit/{setting,synthetic|forecast}_rho{rho}.tsv")
    assert rx.match("b/fit/forecast_rho0.5.tsv").group("rho") == "0.5"
    assert rx.match("b/fit/other_rho0.5.tsv") is None
    assert pattern_regex("b/{fig}.tsv").match("b/x/y.tsv") is None  # one path part per wildcard
    assert pattern_regex("b/a.tsv").match("b/a.tsv.bak") is None


def test_attribute_needs_exactly_one_rule(tmp_path):
    specs = specs_for(tmp_path)
    assert [s.name for _, s in attribute([f"{tmp_path}/figure/fig1.tsv"], specs)] == ["figure"]
    with pytest.raises(CostsError, match="matches the benchmark pattern of 0 rules"):
        attribute([f"{tmp_path}/unknown/x.tsv"], specs)
    twice = specs + [RuleSpec("other", "spdp", f"{tmp_path}/figure/{{name}}.tsv", 1, 1, 1)]
    with pytest.raises(CostsError, match="2 rules"):
        attribute([f"{tmp_path}/figure/fig1.tsv"], twice)


def test_read_benchmark_takes_last_line_and_names_bad_field(tmp_path):
    path = tmp_path / "b.tsv"
    path.write_text(HEADER + "1.00\t0\t10\t1\t1\t1\t0\t2\t50\t0.9\n" + "3.00\t0\t30\t1\t1\t1\t0\t4\t50\t2.9\n")
    assert read_benchmark(path) == {"s": 3.0, "max_rss": 30.0, "io_out": 4.0, "cpu_time": 2.9}
    path.write_text(HEADER + "1.00\t0\tNA?\t1\t1\t1\t0\t2\t50\t0.9\n")
    with pytest.raises(CostsError, match=r"b\.tsv: field 'max_rss' has value 'NA\?'"):
        read_benchmark(path)
    path.write_text("s\tmax_rss\n1\t2\n")
    with pytest.raises(CostsError, match="lacks column"):
        read_benchmark(path)


def test_rule_and_experiment_tables(tmp_path):
    files = [
        bench(tmp_path / "fit" / "synthetic_rho1.tsv", 30.0, 450.0, out=2.0, cpu=29.0),
        bench(tmp_path / "fit" / "forecast_rho1.tsv", 150.0, 120.0, out=3.0, cpu=140.0),  # 2.5 min > 2 min declared
        bench(tmp_path / "figure" / "fig1.tsv", 5.0, 410.0, out=0.5),  # 410 MB > 400 MB declared
        bench(tmp_path / "release" / "release.tsv", 2.0, 100.0, out=7.0),
    ]
    rules = rule_costs(files, specs_for(tmp_path))
    fit = rules.set_index("rule").loc["fit"]
    assert (fit["jobs"], fit["wall_s_sum"], fit["wall_s_max"], fit["cpu_s_sum"]) == (2, 180.0, 150.0, 169.0)
    assert (fit["rss_mb_max"], fit["written_mb_sum"]) == (450.0, 5.0)
    assert bool(fit["within_mem"]) and not bool(fit["within_runtime"])
    fig = rules.set_index("rule").loc["figure"]
    assert not bool(fig["within_mem"]) and bool(fig["within_runtime"])
    assert list(rules["experiment"]) == [
        "classdp",
        "classdp",
        "spdp",
    ]  # the papers' order (their descriptors), then rule name
    exp = experiment_costs(rules).set_index("experiment")
    assert exp.loc["classdp", "jobs"] == 3 and exp.loc["classdp", "wall_s_sum"] == 185.0
    assert exp.loc["classdp", "rss_mb_max"] == 450.0 and not bool(exp.loc["classdp", "within_declared"])
    assert bool(exp.loc["spdp", "within_declared"]) and exp.loc["spdp", "written_mb_sum"] == 7.0


def test_collect_costs_writes_tables_and_markdown(tmp_path):
    files = [bench(tmp_path / "release" / "release.tsv", 2.0, 100.0)]
    out = tmp_path / "out"
    collect_costs(
        files, specs_for(tmp_path), out / "rules.csv", out / "exp.csv", out / "costs.md", disk_dirs=[str(tmp_path)]
    )
    assert pd.read_csv(out / "rules.csv")["rule"].tolist() == ["release"]
    md = (out / "costs.md").read_text()
    assert "spdp (spectral DP)" in md and "| 1 |" in md and "Disk after the run" in md
    assert "| yes |" in md and "True" not in md
    with pytest.raises(CostsError, match="no benchmark files"):
        collect_costs([], specs_for(tmp_path), out / "r.csv", out / "e.csv", out / "c.md")


# ---- the workflow's declarations ---------------------------------------------------------------

RULE_RE = re.compile(r"^(\s*)rule\s*(\w*):\n(.*?)(?=^\s*rule\b|^\S|\Z)", re.S | re.M)


def rule_blocks():
    for path in rules_files():
        for m in RULE_RE.finditer(path.read_text()):
            yield path.name, m.group(2) or "(dynamic)", m.group(3)


def test_every_rule_declares_benchmark_and_resources():
    blocks = list(rule_blocks())
    assert len(blocks) > 40
    for fname, name, body in blocks:
        where = f"{fname}: rule {name}"
        if not re.search(r"^\s*(script|shell|run):", body, re.M):
            continue  # a target (only inputs; no job, in REGISTRY.not_measured): nothing to measure
        # in the run's folder at its replicate level (BENCHMARKS, DATA_BENCHMARKS) or once per run (RUN_BENCHMARKS),
        # or in benchmarks/ itself for a rule whose outputs every run shares
        assert re.search(
            r"^\s*benchmark:\n\s*(f?\"benchmarks/|BENCHMARKS \+ \"|f\"\{(RUN_|DATA_)?BENCHMARKS\})", body, re.M
        ), f"{where} has no benchmark"
        # threads: Snakemake's default (1) is every rule's; a rule declares only more (rule_specs records it)
        threads = re.search(r"^\s*threads: (\d+)$", body, re.M)
        assert threads is None or int(threads.group(1)) > 1, f"{where} declares Snakemake's default of 1 thread"
        res = re.search(
            r"^\s*resources:\n(?:\s*#.*\n)*\s*mem_mb=(\d+|lambda wc, input: \w+\(.*\)),\n"
            r"\s*runtime=(\d+|lambda wc, input: \w+\(.*\)),",
            body,
            re.M,
        )
        assert res, f"{where} declares no mem_mb/runtime resources"
        if res.group(1).isdigit():
            assert int(res.group(1)) >= 200 and int(res.group(2)) >= 1, where


def job_stats(workdir: Path, target: str, configfiles: list[str]) -> dict[str, int]:
    """Jobs per rule that `snakemake -n <target>` plans in a workflow copy without outputs (its "Job stats"),
    from the DAG built in-process (tests/helpers/workflow_dag.py; no Snakemake subprocess)."""
    from tests.helpers.workflow_dag import plan

    return dict(Counter(job.rule for job in plan(workdir, configfiles=configfiles, targets=[target]).values()))


@pytest.mark.parametrize("configfile", [None, "config/quick.yaml"])
def test_costs_target_covers_exactly_the_jobs_of_all(workflow_copy, configfile):
    """benchmarks/costs.md needs the benchmark file of every job `all` runs, and no other job."""
    extra = [configfile] if configfile else []
    all_jobs = job_stats(workflow_copy, "all", extra)
    cost_jobs = job_stats(workflow_copy, "benchmarks/quick/costs.md" if configfile else "benchmarks/costs.md", extra)
    # README.md and ARTIFACT.md embed the job counts of both configurations (`snakemake -n --forceall` total,
    # `all` included), generated by dpgrid.core.job_counts
    name = "quick" if configfile else "full"
    assert list(CONFIGURATIONS[name]) == extra
    # the generator's count (a `snakemake -n --forceall` subprocess) is the in-process plan's
    assert planned_jobs(workflow_copy, extra) == sum(all_jobs.values())
    for document in ("README.md", "ARTIFACT.md"):
        stated = parse_job_counts(embedded(REPO / document, "jobs"))
        assert stated[name] == sum(all_jobs.values()), (
            f"{document}: the {name} configuration's job count is stale; regenerate it: "
            "python -m dpgrid.core.job_counts write benchmarks/job_counts.md && "
            f"python -m dpgrid.core.artifact embed jobs benchmarks/job_counts.md {document}"
        )
    assert all_jobs.pop("all") == 1 and cost_jobs.pop("pipeline_costs") == 1
    assert cost_jobs == all_jobs
    assert sum(all_jobs.values()) > 60


def test_costs_target_with_an_empty_sweep(workflow_copy, tmp_path):
    """A sweep configured empty (the schema allows no similarities) has no jobs: the costs target must not ask
    for a benchmark file with an unfilled wildcard (it failed with a WildcardError before)."""
    empty = tmp_path / "empty_sweep.yaml"
    empty.write_text("classdp:\n  forecast:\n    similarity_sweep:\n      similarities: []\n")
    extra = ["config/quick.yaml", str(empty)]
    all_jobs = job_stats(workflow_copy, "all", extra)
    cost_jobs = job_stats(workflow_copy, "benchmarks/quick/costs.md", extra)
    assert "classdp_similarity_sweep_point" not in all_jobs and all_jobs["classdp_similarity_sweep"] == 1
    assert all_jobs.pop("all") == 1 and cost_jobs.pop("pipeline_costs") == 1
    assert cost_jobs == all_jobs


def test_check_command_fails_when_a_job_exceeds_its_declaration(tmp_path, capsys):
    from dpgrid.core.costs import main

    files = [bench(tmp_path / "release" / "release.tsv", 2.0, 100.0)]
    out = tmp_path / "out"
    collect_costs(files, specs_for(tmp_path), out / "rules.csv", out / "exp.csv", out / "costs.md")
    assert main(["check", str(out / "rules.csv")]) == 0
    bench(tmp_path / "release" / "release.tsv", 2.0, 301.0)  # declared mem_mb=300
    collect_costs(files, specs_for(tmp_path), out / "rules.csv", out / "exp.csv", out / "costs.md")
    assert main(["check", str(out / "rules.csv")]) == 1
    assert "release" in capsys.readouterr().err


def test_job_usage_record_raises_cpu_and_memory_the_benchmark_sampled_too_low(tmp_path):
    """A long job's benchmark misses CPU time and a memory peak between its 30 s samples; the job's own record
    (beside its log) is used where it is larger, never to lower a sampled value."""
    import json

    from dpgrid.core.pipeline import usage_path

    spec = RuleSpec(
        "fit", "classdp", f"{tmp_path}/b/fit_{{rho}}.tsv", 1, 250, 5, log=f"{tmp_path}/logs/fit_{{rho}}.log"
    )
    files = [bench(tmp_path / "b" / "fit_1.tsv", 60.0, 10.0, cpu=1.0), bench(tmp_path / "b" / "fit_2.tsv", 9.0, 90.0)]
    (tmp_path / "logs").mkdir()
    usage_path(tmp_path / "logs" / "fit_1.log").write_text(json.dumps({"cpu_s": 55.0, "max_rss_mb": 300.0}))
    usage_path(tmp_path / "logs" / "fit_2.log").write_text(json.dumps({"cpu_s": 2.0, "max_rss_mb": 20.0}))
    fit = rule_costs(files, [spec]).set_index("rule").loc["fit"]
    assert fit["cpu_s_sum"] == 55.0 + 9.0 and fit["rss_mb_max"] == 300.0
    assert not bool(fit["within_mem"])  # the peak the samples missed exceeds the declared 250 MB
    # without the records: the benchmark's values
    for rho in (1, 2):
        usage_path(tmp_path / "logs" / f"fit_{rho}.log").unlink()
    fit = rule_costs(files, [spec]).set_index("rule").loc["fit"]
    assert fit["cpu_s_sum"] == 1.0 + 9.0 and fit["rss_mb_max"] == 90.0 and bool(fit["within_mem"])
    usage_path(tmp_path / "logs" / "fit_1.log").write_text("{not json")
    with pytest.raises(CostsError, match=r"fit_1\.log\.usage\.json: not a job usage record"):
        rule_costs(files, [spec])
    bad = RuleSpec("fit", "classdp", spec.benchmark, 1, 250, 5, log=f"{tmp_path}/logs/fit_{{shard}}.log")
    with pytest.raises(CostsError, match="uses wildcard 'shard'"):
        rule_costs(files, [bad])


def test_costs_find_every_jobs_log_from_its_benchmark_file(workflow_copy):
    """The usage record is found through the rule's log pattern filled with the wildcards read from the benchmark
    file: for every job of the quick plan this must give the job's own log."""
    from dpgrid.core.costs import _attribute, job_log
    from tests.helpers.workflow_dag import plan

    jobs = plan(workflow_copy, configfiles=["config/quick.yaml"], targets=["all", "benchmarks/quick/costs.md"])
    costs_job = next(j for j in jobs.values() if j.rule == "pipeline_costs")
    specs = [RuleSpec(**s) for s in costs_job.param_values["rules"]]
    measured = [j for j in jobs.values() if j.benchmark and j.rule in {s.name for s in specs}]
    assert len(measured) > 50
    for job, (_, spec, wildcards) in zip(measured, _attribute([j.benchmark for j in measured], specs)):
        assert spec.name == job.rule
        assert job.logs, f"rule {job.rule} has no log"
        assert str(job_log(spec, wildcards)) == job.logs[0], job.rule
