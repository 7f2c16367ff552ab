import pandas as pd
import pytest

from dpgrid.claims import (
    Claim,
    ClaimsError,
    boolean_claim,
    collect_claims,
    numeric_claim,
    read_claims,
    write_claims,
)


def test_numeric_claim_verdicts():
    ok = numeric_claim("a", "p", "Fig. 1", "x", 1.0, 1.04, rel_tol=0.05)
    assert ok.verdict == "reproduced" and ok.tolerance == "rel 0.05"
    bad = numeric_claim("b", "p", "Fig. 1", "x", 1.0, 1.06, rel_tol=0.05)
    assert bad.verdict == "differs" and "6" in bad.note
    absolute = numeric_claim("c", "p", "Fig. 1", "x", 0.0, 0.009, abs_tol=0.01)
    assert absolute.verdict == "reproduced"
    nan = numeric_claim("d", "p", "T", "x", 1.0, float("nan"), rel_tol=1.0)
    assert nan.verdict == "differs"
    nc = numeric_claim("e", "p", "T", "x", 1.0, 1.0, rel_tol=0.1, comparable=False, note="other data")
    assert nc.verdict == "not comparable"


def test_numeric_claim_needs_tolerance():
    with pytest.raises(ClaimsError):
        numeric_claim("a", "p", "T", "x", 1.0, 1.0)


def test_non_reproduced_needs_reason():
    with pytest.raises(ClaimsError, match="needs a note"):
        Claim("a", "p", "T", "x", "1", "2", "exact", "differs")
    with pytest.raises(ClaimsError, match="verdict"):
        Claim("a", "p", "T", "x", "1", "2", "exact", "maybe", "n")


def test_boolean_claim():
    assert boolean_claim("a", "p", "T", "x", True).verdict == "reproduced"
    c = boolean_claim("b", "p", "T", "x", False)
    assert c.verdict == "differs" and c.note


def test_roundtrip_and_collect(tmp_path):
    c1 = [
        numeric_claim("a1", "pa", "Fig. 1", "value | with pipe", 2.0, 2.0, rel_tol=0.01),
        boolean_claim("a2", "pa", "Fig. 2", "holds", False, note="it does not"),
    ]
    c2 = [numeric_claim("b1", "pb", "Tab. 1", "y", 3.0, 1.0, abs_tol=0.5, comparable=False, note="synthetic data")]
    write_claims(c1, tmp_path / "a.csv")
    write_claims(c2, tmp_path / "b.csv")
    assert read_claims(tmp_path / "a.csv") == c1
    summary = collect_claims([tmp_path / "a.csv", tmp_path / "b.csv"], tmp_path / "all.csv", tmp_path / "all.md")
    assert summary == "1 of 3 claims reproduced, 1 differ, 1 not comparable."
    md = (tmp_path / "all.md").read_text()
    assert "## pa" in md and "## pb" in md and "value \\| with pipe" in md
    assert len(pd.read_csv(tmp_path / "all.csv")) == 3


def test_duplicate_ids_rejected(tmp_path):
    c = numeric_claim("a", "p", "T", "x", 1.0, 1.0, rel_tol=0.1)
    with pytest.raises(ClaimsError, match="duplicate"):
        write_claims([c, c], tmp_path / "x.csv")


def test_malformed_file_names_row(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text(
        "claim_id,paper,target,description,paper_value,reproduced_value,tolerance,verdict,note\n"
        "a,p,T,x,1,1,exact,reproduced,\n"
        "b,p,T,x,1,2,exact,perhaps,n\n"
    )
    with pytest.raises(ClaimsError, match=r"bad.csv, row 3"):
        read_claims(p)
