"""Two disjoint seed sets (dpgrid.core.seed_sets): disjointness of the replicate seeds, contradictions found."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpgrid.core.replicates import data_seed, noise_seed
from dpgrid.core.seed_sets import SeedSetsError, main, replicate_seeds, shared_seeds, verdict_pairs

VERDICTS = ["reproduced", "differs", "seed-dependent", "not comparable", "calibration target"]


def _table(path, verdicts: dict[str, str]) -> str:
    pd.DataFrame(
        {"claim_id": list(verdicts), "paper": ["p"] * len(verdicts), "verdict": list(verdicts.values())}
    ).to_csv(path, index=False)
    return str(path)


@given(st.integers(0, 2**32), st.integers(1, 6), st.integers(1, 5))
def test_the_replicate_seeds_are_every_data_and_noise_seed(seed, n_data, n_noise):
    """Brute force over the grid: the set holds each replicate's data and noise seed and nothing else; replicate
    (0, 0) is the root seed itself."""
    expected = {data_seed(seed, d) for d in range(n_data)} | {
        noise_seed(seed, d, n) for d in range(n_data) for n in range(n_noise)
    }
    assert replicate_seeds(seed, n_data, n_noise) == expected
    assert seed in expected


@given(st.integers(0, 2**32), st.integers(1, 2**16))
def test_two_root_seeds_give_disjoint_sets_and_one_root_seed_shares_all(seed, offset):
    assert shared_seeds(seed, seed + offset, 5, 4) == set()
    assert shared_seeds(seed, seed, 5, 4) == replicate_seeds(seed, 5, 4)


@given(st.lists(st.tuples(st.sampled_from(VERDICTS), st.sampled_from(VERDICTS)), min_size=1, max_size=12))
def test_a_contradiction_is_exactly_reproduced_against_differs(tmp_path_factory, pairs):
    """The comparison flags a claim iff one set says reproduced and the other differs, in either order, and the
    command exits 1 exactly then, naming every such claim."""
    tmp = tmp_path_factory.mktemp("sets")
    a = _table(tmp / "a.csv", {f"c{i}": x for i, (x, _) in enumerate(pairs)})
    b = _table(tmp / "b.csv", {f"c{i}": y for i, (_, y) in enumerate(pairs)})
    found = [p.claim_id for p in verdict_pairs(a, b) if p.contradictory]
    expected = [f"c{i}" for i, (x, y) in enumerate(pairs) if {x, y} == {"reproduced", "differs"}]
    assert found == expected
    assert main([a, b, "--seeds", "1", "2", "--replicates", "2", "2", "--markdown", str(tmp / "s.md")]) == (
        1 if expected else 0
    )
    text = (tmp / "s.md").read_text()
    assert f"{len(pairs)} claims; {len(expected)} reproduced over one set" in text
    assert all(f"| {cid} | p |" in text for cid in expected)


def test_a_claim_of_one_table_only_is_listed_as_missing(tmp_path):
    a = _table(tmp_path / "a.csv", {"c0": "reproduced", "c1": "differs"})
    b = _table(tmp_path / "b.csv", {"c0": "reproduced", "c2": "differs"})
    pairs = {p.claim_id: (p.first, p.second) for p in verdict_pairs(a, b)}
    assert pairs == {"c0": ("reproduced", "reproduced"), "c1": ("differs", "missing"), "c2": ("missing", "differs")}


def test_one_root_seed_twice_is_refused(tmp_path, capsys):
    a = _table(tmp_path / "a.csv", {"c0": "reproduced"})
    assert main([a, a, "--seeds", "7", "7", "--replicates", "2", "2"]) == 2
    assert "not disjoint" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (pd.DataFrame({"claim_id": ["c0"], "verdict": ["reproduced"]}), r"columns \[.paper.\] missing"),
        (pd.DataFrame({"claim_id": ["c0", "c0"], "paper": ["p", "p"], "verdict": ["differs"] * 2}), "'c0' appears"),
    ],
)
def test_tables_that_cannot_be_compared_are_named(tmp_path, frame, message, capsys):
    bad = tmp_path / "bad.csv"
    frame.to_csv(bad, index=False)
    good = _table(tmp_path / "good.csv", {"c0": "reproduced"})
    with pytest.raises(SeedSetsError, match=message) as err:
        verdict_pairs(good, str(bad))
    assert str(bad) in str(err.value)
    # the command line says the same in one line, without a traceback, and exits 2
    assert main([good, str(bad), "--seeds", "1", "2", "--replicates", "1", "1"]) == 2
    err_text = capsys.readouterr().err
    assert err_text.startswith("seed_sets: ") and str(bad) in err_text and "Traceback" not in err_text
    assert main([good, str(tmp_path / "absent.csv"), "--seeds", "1", "2", "--replicates", "1", "1"]) == 2
    assert "absent.csv" in capsys.readouterr().err
