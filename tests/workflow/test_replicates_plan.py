"""The replicates of claims_over_seeds as Snakemake plans them (config/quick.yaml: 2 data x 2 noise replicates).

- Replicate (d, 0) is the run with ``seed`` set to the data seed of d: every one of its jobs has the params of the
  same job of that run (only the paths differ).
- A noise replicate n > 0 reuses its data replicate's data-level jobs (no data-level job has a noise folder) and
  draws its noise from a seed of its own: every job that takes a seed gets a different one in each replicate.
- Replicate (0, 0) is the run itself: `all` plans the same jobs with the same params as before replicates existed
  (checked byte for byte on results by the quick run; here: the plan of `all` has no replicate folder).
"""

from __future__ import annotations

import functools
from collections import defaultdict

import pytest
import yaml

from dpgrid.core.replicates import data_index, data_seed, noise_index, replicate_grid
from tests.helpers.repo import REPO, copy_workflow
from tests.helpers.workflow_dag import plan

QUICK = ["config/quick.yaml"]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return copy_workflow(tmp_path_factory.mktemp("replicates") / "wf")


@functools.cache
def _quick_config() -> dict:
    merged = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    merged.update(yaml.safe_load((REPO / "config" / "quick.yaml").read_text()))
    return merged


@pytest.fixture(scope="module")
def replicated(workdir):
    return plan(workdir, configfiles=QUICK, targets=["over_seeds"])


def _replicate(job) -> tuple[int, int]:
    return data_index(job.wildcards.get("drep", "")), noise_index(job.wildcards.get("nrep", ""))


def _other_wildcards(job) -> tuple:
    return tuple(sorted((k, v) for k, v in job.wildcards.items() if k not in ("drep", "nrep")))


def _comparable_params(job) -> dict:
    """The job's params without those that name files (a replicate's paths differ by its folders)."""
    return {k: v for k, v in job.param_values.items() if k not in ("code",)}


def test_the_plan_covers_every_replicate_of_the_config(replicated):
    cfg = _quick_config()["replicates"]
    claims = [j for j in replicated.values() if j.rule == "claims_table"]
    assert sorted(_replicate(j) for j in claims) == sorted(replicate_grid(cfg["data"], cfg["noise"]))
    (over,) = [j for j in replicated.values() if j.rule == "claims_over_seeds"]
    assert len(over.inputs) == cfg["data"] * cfg["noise"]


def test_every_table_over_seeds_reads_its_table_from_every_replicate(replicated):
    """A spread reads one table per replicate that has its own: per data replicate for a data-level table (Fig. 4's
    curves), per (data, noise) replicate for the rest; each is the replicate's own file, and the figures over seeds
    read the spread tables."""
    cfg = _quick_config()["replicates"]
    producers = {f: j for j in replicated.values() for f in j.outputs}
    spreads = [j for j in replicated.values() if j.rule == "table_over_seeds"]
    assert {f"{j.wildcards['paper']}/{j.wildcards['name']}" for j in spreads} >= {
        "classdp/fig4_delta",
        "spdp/table2",
        "spdp/table3",
        "dpkmeans/fig9_accuracy",
    }
    for job in spreads:
        sources = [producers[f] for f in job.inputs]
        reps = [_replicate(j) for j in sources]
        assert len(set(reps)) == len(reps) == len(job.inputs), job.wildcards
        data_level = all(n == 0 for _, n in reps)
        want = (
            sorted({(d, 0) for d in range(cfg["data"])})
            if data_level
            else sorted(replicate_grid(cfg["data"], cfg["noise"]))
        )
        assert sorted(reps) == want, (job.wildcards, reps)
        assert len({j.rule for j in sources}) == 1
    figures = [j for j in replicated.values() if j.rule.endswith("_figure_over_seeds")]
    assert {j.rule for j in figures} == {"classdp_figure_over_seeds", "dpkmeans_figure_over_seeds"}
    for job in figures:
        assert [producers[f].rule for f in job.inputs] == ["table_over_seeds"]


def test_noise_replicates_reuse_the_data_level_jobs(replicated):
    by_rule = defaultdict(set)
    for job in replicated.values():
        by_rule[job.rule].add(_replicate(job))
    data_level = {r for r, reps in by_rule.items() if all(n == 0 for _, n in reps) and len({d for d, _ in reps}) > 1}
    assert {"meter_data", "classdp_forecast_arma", "dpkmeans_clustering", "spdp_calibration"} <= data_level
    for job in replicated.values():
        d, n = _replicate(job)
        if n:  # a noise replicate's job reads no data-level file of another folder than its data replicate's
            for f in job.inputs:
                assert "/replicates/d" not in f or f"/replicates/d{d}/" in f, (job.rule, f)


def test_every_replicate_draws_its_noise_from_a_seed_of_its_own(replicated):
    seeds = defaultdict(dict)
    for job in replicated.values():
        if "seed" in job.param_values and job.param_values["seed"] is not None:
            seeds[(job.rule, _other_wildcards(job))][_replicate(job)] = job.param_values["seed"]
    varied = 0
    for (rule, _), per_replicate in seeds.items():
        if len(per_replicate) > 1:
            values = list(per_replicate.values())
            assert len(set(values)) == len(values), f"{rule}: replicates share a seed: {per_replicate}"
            varied += 1
    assert varied >= 20


def test_replicate_d0_is_the_run_with_the_data_seed(workdir, replicated):
    d = 1
    seed = _quick_config()["seed"]
    plain = plan(workdir, configfiles=QUICK, config={"seed": data_seed(seed, d)}, targets=["results/quick/claims.csv"])
    plain_jobs = {(j.rule, _other_wildcards(j)): j for j in plain.values() if j.rule != "claims_table"}
    mine = {
        (j.rule, _other_wildcards(j)): j
        for j in replicated.values()
        if _replicate(j) == (d, 0) and j.rule not in ("claims_table",)
    }
    assert mine and set(mine) <= set(plain_jobs)
    for key, job in mine.items():
        assert _comparable_params(job) == _comparable_params(plain_jobs[key]), key


def test_all_plans_replicate_zero_only(workdir):
    everything = plan(workdir, configfiles=QUICK)
    for job in everything.values():
        assert _replicate(job) == (0, 0), job.rule
        for f in (*job.inputs, *job.outputs):
            assert "replicates/" not in f and "/n1/" not in f, (job.rule, f)
