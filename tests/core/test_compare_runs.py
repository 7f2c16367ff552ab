"""dpgrid.core.compare_runs: table-by-table comparison of two results trees under stated tolerances."""

from __future__ import annotations

import math

import pytest

from dpgrid.core.compare_runs import CompareError, Tolerance, compare_runs, main, parse_tolerance, to_markdown


def _write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def runs(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    for root in (old, new):
        _write(root, "a/same.csv", "x,y\n1,2\n")
        _write(root, "a/fig.pdf", "%PDF same")
    return old, new


def test_identical_trees_are_ok(runs):
    old, new = runs
    cmp = compare_runs(old, new)
    assert cmp.ok and sorted(cmp.identical) == ["a/fig.pdf", "a/same.csv"] and not cmp.tables


def test_numeric_move_judged_against_rel_and_abs_tolerance(runs):
    old, new = runs
    _write(old, "t.csv", "name,v,w\nr1,1.0,0\nr2,100,5\n")
    _write(new, "t.csv", "name,v,w\nr1,1.0000001,0\nr2,100.00002,5\n")
    # moves: 1e-7 (rel 1e-7) and 2e-5 (rel 2e-7)
    exact = compare_runs(old, new)
    (t,) = exact.tables
    assert t.numeric_cells_moved == 2 and t.numeric_cells_out == 2 and not exact.ok
    assert math.isclose(t.max_abs, 2e-5, rel_tol=1e-6) and math.isclose(t.max_rel, 2e-7, rel_tol=1e-6)
    assert t.worst == "v, row 3"
    loose = compare_runs(old, new, default=Tolerance(3e-7, 0.0))
    assert loose.ok and loose.tables[0].numeric_cells_out == 0
    # the absolute part alone: 1e-7 passes with atol 1e-6, 2e-5 does not
    partly = compare_runs(old, new, default=Tolerance(0.0, 1e-6))
    assert partly.tables[0].numeric_cells_out == 1


def test_glob_rules_first_match_wins(runs):
    old, new = runs
    _write(old, "classdp/t.csv", "v\n1\n")
    _write(new, "classdp/t.csv", "v\n1.1\n")
    rules = [("classdp/*", Tolerance(0.2, 0)), ("*", Tolerance(0, 0))]
    assert compare_runs(old, new, rules).ok
    assert not compare_runs(old, new, rules[::-1]).ok


def test_text_change_structure_change_and_nan(runs):
    old, new = runs
    _write(old, "text.csv", "k,v\nA,1\n")
    _write(new, "text.csv", "k,v\nB,1\n")
    _write(old, "shape.csv", "k,v\nA,1\n")
    _write(new, "shape.csv", "k,v\nA,1\nB,2\n")
    _write(old, "nan.csv", "v\nnan\n1\n")
    _write(new, "nan.csv", "v\nnan\n1.0\n")
    _write(old, "nan2.csv", "v\n2\n")
    _write(new, "nan2.csv", "v\nnan\n")
    cmp = compare_runs(old, new, default=Tolerance(1, 1))
    by = {t.path: t for t in cmp.tables}
    assert by["text.csv"].text_cells_changed == 1 and not by["text.csv"].within
    assert by["shape.csv"].structure.startswith("shape differs")
    assert by["nan.csv"].within  # NaN on both sides is equal; 1 vs 1.0 is the same number
    assert not by["nan2.csv"].within  # a number became NaN: beyond any tolerance


def test_zero_reference_moving_is_infinite_relative(runs):
    old, new = runs
    _write(old, "z.csv", "v\n0\n")
    _write(new, "z.csv", "v\n1e-12\n")
    (t,) = compare_runs(old, new, default=Tolerance(1e-3, 1e-9)).tables
    assert t.within and t.max_rel == math.inf


def test_missing_added_and_other_files(runs):
    old, new = runs
    _write(old, "gone.csv", "v\n1\n")
    _write(new, "added.csv", "v\n1\n")
    _write(new, "a/fig.pdf", "%PDF other")
    cmp = compare_runs(old, new)
    assert cmp.only_old == ["gone.csv"] and cmp.only_new == ["added.csv"]
    assert cmp.other_differing == ["a/fig.pdf"] and not cmp.ok


def test_claim_verdict_changes_are_listed(runs):
    old, new = runs
    header = "claim_id,verdict,reproduced_value\n"
    _write(old, "claims.csv", header + "c1,reproduced,1\nc2,differs,2\n")
    _write(new, "claims.csv", header + "c1,reproduced,1.0000001\nc2,reproduced,2\nc3,differs,3\n")
    cmp = compare_runs(old, new, default=Tolerance(1e-3, 0))
    changes = {(v.claim_id, v.old, v.new) for v in cmp.verdicts}
    assert changes == {("c2", "differs", "reproduced"), ("c3", "(absent)", "differs")}
    assert not cmp.ok
    md = to_markdown(cmp)
    assert "| c2 | differs | reproduced |" in md


def test_cli_exit_codes_and_bad_tolerance(runs, tmp_path, capsys):
    old, new = runs
    assert main([str(old), str(new)]) == 0
    _write(new, "a/same.csv", "x,y\n1,2.5\n")
    assert main([str(old), str(new)]) == 1
    assert main([str(old), str(new), "--tol", "a/*=0.5,0"]) == 0
    assert main([str(old), str(new), "--tol", "a/*=x,1"]) == 2
    assert "RTOL and ATOL must be numbers" in capsys.readouterr().err
    assert main([str(tmp_path / "nope"), str(new)]) == 2
    with pytest.raises(CompareError):
        parse_tolerance("-1,0")
