"""dpgrid.core.spread: a result table over replicates, lined up by its keys (median and range per cell)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpgrid.core.spread import SpreadError, main, markdown, median_interval, spread

finite = st.floats(-1e6, 1e6, allow_nan=False)
cell = st.one_of(finite, st.just(math.nan))


@st.composite
def replicate_tables(draw):
    """Replicates of one table: the same keys (a, b) in a shuffled row order, two value columns with NaNs."""
    n_rows = draw(st.integers(1, 6))
    n_reps = draw(st.integers(1, 7))
    keys = [(f"m{i % 3}", i) for i in range(n_rows)]
    tables = []
    for _ in range(n_reps):
        order = draw(st.permutations(range(n_rows)))
        rows = [{"a": keys[i][0], "b": keys[i][1], "x": draw(cell), "y": draw(finite)} for i in order]
        tables.append(pd.DataFrame(rows, columns=["a", "b", "x", "y"]))
    return tables


def _by_key(table):
    return {(r.a, r.b): r for r in table.itertuples()}


@settings(max_examples=60, deadline=None)
@given(replicate_tables(), st.randoms())
def test_each_cell_is_the_median_and_range_of_its_replicates(tables, rnd):
    out = spread(tables, ["a", "b"], ["x", "y"])
    assert len(out) == 2 * len(tables[0])
    assert list(out[out["quantity"] == "x"][["a", "b"]].itertuples(index=False, name=None)) == list(
        tables[0][["a", "b"]].itertuples(index=False, name=None)
    )
    for r in out.itertuples():
        draws = np.array([getattr(_by_key(t)[(r.a, r.b)], r.quantity) for t in tables], float)
        draws = draws[np.isfinite(draws)]
        assert r.replicates == draws.size
        if draws.size:
            assert (r.median, r.low, r.high) == (np.median(draws), draws.min(), draws.max())
            assert r.low <= r.median <= r.high
        else:
            assert math.isnan(r.median) and math.isnan(r.low) and math.isnan(r.high)
    # the replicates' order does not matter
    shuffled = list(tables)
    rnd.shuffle(shuffled)
    again = spread(shuffled, ["a", "b"], ["x", "y"])
    key = ["a", "b", "quantity"]
    pd.testing.assert_frame_equal(
        out.sort_values(key).reset_index(drop=True), again.sort_values(key).reset_index(drop=True)
    )


def test_tables_that_cannot_be_lined_up_are_named():
    t = pd.DataFrame({"k": ["a", "b"], "v": [1.0, 2.0]})
    with pytest.raises(SpreadError, match="no replicate"):
        spread([], ["k"], ["v"])
    with pytest.raises(SpreadError, match=r"r1: rows differ.*extra \[\('c',\)\].*missing \[\('b',\)\]"):
        spread([t, pd.DataFrame({"k": ["a", "c"], "v": [1.0, 2.0]})], ["k"], ["v"], names=["r0", "r1"])
    with pytest.raises(SpreadError, match=r"r1: key\(s\) \['k'\] repeat"):
        spread([t, pd.DataFrame({"k": ["a", "a"], "v": [1.0, 2.0]})], ["k"], ["v"], names=["r0", "r1"])
    with pytest.raises(SpreadError, match=r"r0: no column\(s\) \['w'\]"):
        spread([t], ["k"], ["w"], names=["r0"])
    # a row missing from one replicate is an error even when the counts agree
    with pytest.raises(SpreadError, match="rows differ"):
        spread([t, t.assign(k=["a", "z"])], ["k"], ["v"])


def test_markdown_prints_median_and_range_per_row_and_quantity():
    tables = [pd.DataFrame({"k": ["a|b", "c"], "v": [v, 10 * v], "w": [math.nan, v]}) for v in (1.0, 3.0, 2.0)]
    out = spread(tables, ["k"], ["v", "w"])
    md = markdown(out, ["k"], "T")
    assert "| k | v | w |" in md
    assert "| a\\|b | 2 [1, 3] | - |" in md
    assert "| c | 20 [10, 30] | 2 [1, 3] |" in md
    assert "over 0, 3 replicate(s)" in md
    assert median_interval(math.nan, math.nan, math.nan) == "-"


def test_command_line_writes_both_files_and_names_bad_input(tmp_path, capsys):
    files = []
    for i, v in enumerate((1.0, 5.0, 3.0)):
        f = tmp_path / f"r{i}.csv"
        pd.DataFrame({"series": ["s"], "mean_kw": [v]}).to_csv(f, index=False)
        files.append(str(f))
    out_csv, out_md = tmp_path / "o.csv", tmp_path / "o.md"
    assert main([str(out_csv), str(out_md), "--keys", "series", "--values", "mean_kw", "--", *files]) == 0
    got = pd.read_csv(out_csv)
    assert got[["median", "low", "high", "replicates"]].iloc[0].tolist() == [3.0, 1.0, 5.0, 3]
    assert "3 [1, 5]" in out_md.read_text()
    pd.DataFrame({"series": ["t"], "mean_kw": [1.0]}).to_csv(files[1], index=False)
    bad = tmp_path / "bad.csv"
    assert main([str(bad), str(tmp_path / "bad.md"), "--keys", "series", "--values", "mean_kw", "--", *files]) == 1
    assert files[1] in capsys.readouterr().err and not bad.exists()
