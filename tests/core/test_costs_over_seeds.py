"""dpgrid.core.costs_over_seeds: job CPU per replicate from the benchmark folders of a run over the replicates."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpgrid.core.costs_over_seeds import CostsOverSeedsError, main, replicate_costs, replicate_of, summary
from dpgrid.core.replicates import data_folder, noise_folder

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def _bench(root: Path, rel: str, s: float, cpu: float) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + f"{s}\t0:00:01\t100\t200\t90\t95\t0\t0.1\t50\t{cpu}\n")


@settings(max_examples=25, deadline=None)
@given(
    n_data=st.integers(1, 3),
    n_noise=st.integers(1, 3),
    cpu=st.lists(st.integers(1, 500), min_size=64, max_size=64),
)
def test_each_replicate_sums_exactly_its_own_jobs(tmp_path_factory, n_data, n_noise, cpu):
    """Jobs written in the replicate layout of dpgrid.core.replicates are summed per replicate and kind; the
    shares are against replicate (0, 0)'s CPU."""
    root = tmp_path_factory.mktemp("bench")
    values = iter(cpu)
    want = {}
    for d in range(n_data):
        for n in range(n_noise):
            level = "noise" if n else ("data" if d else "run")
            jobs = [("rule_a", "a.tsv"), ("rule_b", "b_1.tsv")] + ([("rule_data", "x.tsv")] if n == 0 else [])
            total = 0
            for rule, name in jobs:
                folder = data_folder(d) if rule == "rule_data" else data_folder(d) + noise_folder(n)
                c = next(values)
                _bench(root, f"{folder}{rule}/{name}", 1.0, c)
                total += c
            want[(d, n)] = (level, total)
    _bench(root, "claims_over_seeds/claims_over_seeds.tsv", 0.5, 7)
    jobs = replicate_costs(root)
    assert len(jobs) == sum(3 if n == 0 else 2 for d, n in want) + 1
    for (d, n), (level, total) in want.items():
        mine = jobs[(jobs["d"] == d) & (jobs["n"] == n) & (jobs["kind"] == level)]
        assert mine["cpu_time"].sum() == total
    table = summary(jobs).set_index("kind")
    run = want[(0, 0)][1]
    assert table.loc["run", "cpu_mean"] == run
    assert table.loc["over_seeds", "cpu_mean"] == 7
    noise = [t for (d, n), (k, t) in want.items() if k == "noise"]
    if noise:
        assert table.loc["noise", "replicates"] == len(noise)
        assert table.loc["noise", "cpu_mean"] == pytest.approx(sum(noise) / len(noise))
        assert table.loc["noise", "share_of_run"] == pytest.approx(sum(noise) / len(noise) / run)
        assert (table.loc["noise", "cpu_low"], table.loc["noise", "cpu_high"]) == (min(noise), max(noise))
    else:
        assert "noise" not in table.index


def test_paths_name_their_replicate_or_are_refused(tmp_path):
    assert replicate_of(Path("replicates/d3/n2/rule/x.tsv")) == (3, 2, "rule")
    assert replicate_of(Path("replicates/d3/rule/x.tsv")) == (3, 0, "rule")
    assert replicate_of(Path("n4/rule/sub/x.tsv")) == (0, 4, "rule")
    assert replicate_of(Path("rule/x.tsv")) == (0, 0, "rule")
    for bad in ("replicates/d0/rule/x.tsv", "replicates/d01/rule/x.tsv", "n0/rule/x.tsv", "x.tsv"):
        with pytest.raises(CostsOverSeedsError):
            replicate_of(Path(bad))
    with pytest.raises(CostsOverSeedsError, match="no benchmark file"):
        replicate_costs(tmp_path)
    assert main([str(tmp_path), str(tmp_path / "out.md")]) == 1 and not (tmp_path / "out.md").exists()
    _bench(tmp_path, "rule/x.tsv", 2.0, 3.0)
    assert main([str(tmp_path), str(tmp_path / "out.md")]) == 0
    assert "All jobs: 1, 2 s of job time, 3 s CPU." in (tmp_path / "out.md").read_text()
