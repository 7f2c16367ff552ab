"""The critical path of a job graph (dpgrid.core.costs.longest_chain; benchmarks/critical_path.py)."""

from __future__ import annotations

import itertools
import sys

import numpy as np
import pytest

from dpgrid.core.costs import CostsError, longest_chain
from tests.helpers.repo import REPO

sys.path.insert(0, str(REPO / "benchmarks"))


def test_layered_graph_closed_form():
    """L layers of m jobs, each job needs every job of the layer before, job j of a layer takes j + 1 s:
    the longest chain takes the slowest job of every layer, L * m seconds."""
    L, m = 5, 4
    durations = {f"l{a}j{j}": float(j + 1) for a in range(L) for j in range(m)}
    deps = {f"l{a}j{j}": [f"l{a - 1}j{i}" for i in range(m)] for a in range(1, L) for j in range(m)}
    total, chain = longest_chain(durations, deps)
    assert total == L * m
    assert chain == [f"l{a}j{m - 1}" for a in range(L)]


def test_diamond_and_independent_jobs():
    """a -> (b: 10 s | c: 3 s) -> d, plus a lone 12 s job: 1 + 10 + 2 = 13 > 12."""
    durations = {"a": 1.0, "b": 10.0, "c": 3.0, "d": 2.0, "lone": 12.0}
    total, chain = longest_chain(durations, {"b": ["a"], "c": ["a"], "d": ["b", "c"]})
    assert (total, chain) == (13.0, ["a", "b", "d"])
    durations["lone"] = 14.0
    assert longest_chain(durations, {"b": ["a"], "c": ["a"], "d": ["b", "c"]}) == (14.0, ["lone"])


def _all_paths_max(durations, deps):
    """Independent check: the largest sum over every path, by enumerating paths from each job backwards."""
    best = 0.0

    def walk(node, acc):
        nonlocal best
        acc += durations[node]
        best = max(best, acc)
        for d in deps.get(node, ()):
            walk(d, acc)

    for n in durations:
        walk(n, 0.0)
    return best


@pytest.mark.parametrize("seed", range(20))
def test_random_dags_match_path_enumeration(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    names = [f"job{i:02d}" for i in range(n)]
    durations = {k: float(rng.integers(0, 50)) / 4 for k in names}
    deps = {names[j]: [names[i] for i in range(j) if rng.random() < 0.35] for j in range(n)}
    total, chain = longest_chain(durations, deps)
    assert total == pytest.approx(_all_paths_max(durations, deps))
    # the chain is a path of the graph whose times sum to the total
    assert all(a in deps[b] for a, b in itertools.pairwise(chain))
    assert sum(durations[k] for k in chain) == pytest.approx(total)


def test_bad_graphs_are_named():
    with pytest.raises(CostsError, match="cycle"):
        longest_chain({"a": 1.0, "b": 1.0}, {"a": ["b"], "b": ["a"]})
    with pytest.raises(CostsError, match="'b' needs \\['x'\\]"):
        longest_chain({"a": 1.0, "b": 1.0}, {"b": ["x"]})
    with pytest.raises(CostsError, match="'a' has time -1"):
        longest_chain({"a": -1.0}, {})


def test_job_graph_links_outputs_to_inputs():
    """benchmarks/critical_path.py: a job needs the jobs whose outputs it reads (files made by no job are data)."""
    from critical_path import job_graph

    jobs = [
        {"benchmark": "b/x.tsv", "inputs": ["raw.csv"], "outputs": ["x.csv"]},
        {"benchmark": "b/y.tsv", "inputs": ["x.csv"], "outputs": ["y1.csv", "y2.csv"]},
        {"benchmark": "b/z.tsv", "inputs": ["x.csv", "y2.csv"], "outputs": ["z.csv"]},
    ]
    assert job_graph(jobs) == {"b/x.tsv": [], "b/y.tsv": ["b/x.tsv"], "b/z.tsv": ["b/x.tsv", "b/y.tsv"]}


def test_chain_numbers_weigh_the_chain_by_cpu_and_by_wall_separately():
    """a -> b -> c and a lone job d: the CPU-weighted and the wall-weighted chains are different chains."""
    from critical_path import chain_numbers

    jobs = [
        {"benchmark": "a", "inputs": [], "outputs": ["fa"]},
        {"benchmark": "b", "inputs": ["fa"], "outputs": ["fb"]},
        {"benchmark": "c", "inputs": ["fb"], "outputs": ["fc"]},
        {"benchmark": "d", "inputs": [], "outputs": ["fd"]},
    ]
    times = {
        "a": {"wall": 1.0, "cpu": 5.0},
        "b": {"wall": 1.0, "cpu": 5.0},
        "c": {"wall": 1.0, "cpu": 5.0},
        "d": {"wall": 9.0, "cpu": 1.0},  # waits on I/O: long wall, little CPU
    }
    n = chain_numbers(jobs, times)
    assert n == {"cpu": 16.0, "wall": 12.0, "path_cpu": 15.0, "path_wall": 9.0, "longest_wall": 9.0}


def test_speed_ratios_table_gives_each_measure_its_ratio_and_target():
    """benchmarks/speed_ratios.table: one row per measure of the new revision (not its name), the ratio new / old in
    percent, issue 27's target beside it, a measure the old revision lacks as nan."""
    from speed_ratios import table

    old = {"rev": "82ebeed", "quick wall s": (150.0, "1.0 1.0 1.0"), "snakemake -n wall s": (4.0, "0.5 0.5 0.5")}
    new = {
        "rev": "HEAD",
        "quick wall s": (90.0, "1.1 1.0 1.0"),
        "snakemake -n wall s": (2.0, "0.4 0.5 0.5"),
        "full jobs": (181, ""),
    }
    lines = table(old, new).splitlines()
    assert lines[0].startswith("| measure | 82ebeed | HEAD | ratio |")
    rows = {line.split(" | ")[0].lstrip("| "): line for line in lines[2:]}
    assert set(rows) == {"quick wall s", "snakemake -n wall s", "full jobs"}
    assert rows["quick wall s"] == "| quick wall s | 150.0 | 90.0 | 60 % | <= 60 % | 1.0 1.0 1.0 / 1.1 1.0 1.0 |"
    assert "| 50 % | < 3 s |" in rows["snakemake -n wall s"]
    assert "| nan | 181.0 | nan % |" in rows["full jobs"]
