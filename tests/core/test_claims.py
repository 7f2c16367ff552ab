import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpgrid.core.claims import (
    Claim,
    ClaimsError,
    boolean_claim,
    numeric_claim,
    read_claims,
    write_claims,
)
from dpgrid.core.claims_table import collect_claims


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


def test_claim_specs_are_evaluated_in_order_with_their_tolerances():
    from types import SimpleNamespace

    from dpgrid.core.claims import CALIBRATION, NOT_COMPARABLE, ClaimSpec, Measured, evaluate_claims

    specs = (
        ClaimSpec("n1", "T", "number within 5 %", lambda c: Measured(c.x), paper_value=1.0, rel_tol=0.05),
        ClaimSpec("n2", "T", "number off", lambda c: Measured(2 * c.x), paper_value=1.0, abs_tol=0.5),
        ClaimSpec("q1", "T", "holds at eps {eps}", lambda c: Measured(c.x > 0, shown="yes"), quote='"it holds"'),
        ClaimSpec(
            "c1",
            "T",
            "stand-in input",
            lambda c: Measured(c.x, status=CALIBRATION, note="built on it"),
            paper_value=1.0,
            rel_tol=0.1,
        ),
        ClaimSpec(
            "x1",
            "T",
            "other data",
            lambda c: Measured(c.x, status=NOT_COMPARABLE, note="proprietary"),
            paper_value=1.0,
            rel_tol=0.1,
        ),
    )
    rows = evaluate_claims("p", specs, SimpleNamespace(x=1.02), text_args={"eps": 0.5})
    assert [r.claim_id for r in rows] == ["n1", "n2", "q1", "c1", "x1"]
    assert [r.verdict for r in rows] == ["reproduced", "differs", "reproduced", "calibration target", "not comparable"]
    assert rows[1].note.startswith("off by 1.04")  # the default note of a numeric claim that differs
    assert rows[2].description == "holds at eps 0.5" and rows[2].reproduced_value == "yes"
    assert rows[3].tolerance == "input" and rows[3].reproduced_value == "1.02"
    # identical to the row built directly
    assert rows[0] == numeric_claim("n1", "p", "T", "number within 5 %", 1.0, 1.02, rel_tol=0.05)


def test_a_measured_abs_tol_replaces_the_specs_and_keeps_its_rel_tol():
    """A tolerance the run determines (e.g. three standard errors of a sampled mean) decides the verdict and is
    printed; the spec's rel_tol still applies; a qualitative claim rejects one."""
    from types import SimpleNamespace

    from dpgrid.core.claims import NOT_COMPARABLE, ClaimsError, ClaimSpec, Measured, evaluate_claims

    def spec(cid, abs_tol=None):
        return ClaimSpec(
            cid, "T", "mean", lambda c: Measured(c.x, abs_tol=c.se), paper_value=2.0, rel_tol=0.1, abs_tol=abs_tol
        )

    wide, narrow = SimpleNamespace(x=3.0, se=1.5), SimpleNamespace(x=3.0, se=0.5)
    (row,) = evaluate_claims("p", [spec("m")], wide)
    assert row.verdict == "reproduced" and row.tolerance == "rel 0.1 or abs 1.5"
    assert row == numeric_claim("m", "p", "T", "mean", 2.0, 3.0, rel_tol=0.1, abs_tol=1.5)
    (row,) = evaluate_claims("p", [spec("m", abs_tol=2.0)], narrow)  # replaces the spec's 2.0 (which would pass)
    assert row.verdict == "differs" and row.tolerance == "rel 0.1 or abs 0.5"
    (row,) = evaluate_claims("p", [spec("m")], SimpleNamespace(x=2.1, se=0.0))  # rel 0.1 of 2.0 still holds
    assert row.verdict == "reproduced"
    without = ClaimSpec("w", "T", "mean", lambda c: Measured(c.x), paper_value=2.0, rel_tol=0.1, abs_tol=2.0)
    assert evaluate_claims("p", [without], narrow)[0].tolerance == "rel 0.1 or abs 2"  # default: the spec's
    nc = ClaimSpec(
        "n",
        "T",
        "mean",
        lambda c: Measured(c.x, abs_tol=c.se, status=NOT_COMPARABLE, note="other data"),
        paper_value=2.0,
        rel_tol=0.1,
    )
    assert evaluate_claims("p", [nc], wide)[0].verdict == "not comparable"
    with pytest.raises(ClaimsError, match="'q'.*qualitative claim takes no tolerance"):
        evaluate_claims("p", [ClaimSpec("q", "T", "holds", lambda c: Measured(True, abs_tol=1.0))], None)


def test_claim_spec_errors_name_the_claim():
    from types import SimpleNamespace

    from dpgrid.core.claims import CALIBRATION, ClaimsError, ClaimSpec, Measured, evaluate_claims

    with pytest.raises(ClaimsError, match="'a'.*needs rel_tol"):
        ClaimSpec("a", "T", "x", lambda c: Measured(1.0), paper_value=1.0)
    with pytest.raises(ClaimsError, match="'b'.*no tolerance"):
        ClaimSpec("b", "T", "x", lambda c: Measured(True), rel_tol=0.1)
    broken = ClaimSpec("c", "T", "x", lambda c: Measured(c.missing_table), paper_value=1.0, rel_tol=0.1)
    with pytest.raises(ClaimsError, match="'c'.*missing_table"):
        evaluate_claims("p", [broken], SimpleNamespace())
    with pytest.raises(ClaimsError, match="'d'.*calibration target needs a note"):
        evaluate_claims("p", [ClaimSpec("d", "T", "x", lambda c: Measured("v", status=CALIBRATION))], None)
    with pytest.raises(ClaimsError, match="status"):
        Measured(1.0, status="maybe")


def test_claim_spec_reference_and_tolerance_computed_by_the_run():
    """A spec with ``paper_value=None`` is compared with the measured ``reference`` (numeric iff it has a
    tolerance); ``Measured.tolerance`` replaces the stated tolerance but not the verdict."""
    from types import SimpleNamespace

    from dpgrid.core.claims import NOT_COMPARABLE, ClaimsError, ClaimSpec, Measured, evaluate_claims

    opt = ClaimSpec(
        "o", "T", "closed form = optimum", lambda c: Measured(c.x, reference=c.opt), None, rel_tol=1e-3, quote="Lemma 2"
    )
    share = ClaimSpec(
        "s",
        "T",
        "share outside {band[f1]}",
        lambda c: Measured(abs(c.x - c.opt) <= 0.05, reference=f"true gives {c.opt:g}", tolerance="abs 0.05"),
        None,
        quote='"a good match"',
    )
    ctx = SimpleNamespace(x=0.9305, opt=0.93)
    rows = evaluate_claims("p", [opt, share], ctx, text_args={"band": {"f1": "0.95-1.05"}})
    assert rows[0] == numeric_claim("o", "p", "T", "closed form = optimum", 0.93, 0.9305, rel_tol=1e-3)
    assert rows[1].paper_value == "true gives 0.93" and rows[1].tolerance == "abs 0.05"
    assert rows[1].verdict == "reproduced" and rows[1].description == "share outside 0.95-1.05"
    far = evaluate_claims("p", [opt, share], SimpleNamespace(x=0.5, opt=0.93))
    assert [r.verdict for r in far] == ["differs", "differs"] and far[1].tolerance == "abs 0.05"
    # a spec's paper value is still validated; the run must give a reference of the spec's kind
    nc = ClaimSpec(
        "n", "T", "x", lambda c: Measured(1.0, status=NOT_COMPARABLE, note="why"), paper_value=2.0, abs_tol=1
    )
    assert evaluate_claims("p", [nc], None)[0].paper_value == "2"
    with pytest.raises(ClaimsError, match="'o'.*no reference"):
        evaluate_claims("p", [ClaimSpec("o", "T", "x", lambda c: Measured(1.0), None, rel_tol=0.1)], None)
    with pytest.raises(ClaimsError, match="'o'.*must be a number"):
        evaluate_claims("p", [ClaimSpec("o", "T", "x", lambda c: Measured(1.0, reference="a"), None, abs_tol=1)], None)
    with pytest.raises(ClaimsError, match="'q'.*must be a text"):
        evaluate_claims("p", [ClaimSpec("q", "T", "x", lambda c: Measured(True, reference=1.0))], None)


@given(
    mantissa=st.integers(1, 10**6).filter(lambda m: m % 10),
    decimals=st.integers(0, 6),
    offset=st.floats(-3.0, 3.0),
)
def test_a_calibration_target_is_missed_exactly_beyond_half_a_unit_of_its_last_printed_digit(
    mantissa, decimals, offset
):
    """A printed number with ``decimals`` decimals (last digit non-zero) has precision 0.5 10^-decimals; a run off by
    ``offset`` precisions is 'calibration missed' iff |offset| > 1 (away from the boundary, which floats blur)."""
    from hypothesis import assume

    from dpgrid.core.claims import CALIBRATION, ClaimSpec, Measured, evaluate_claims, printed_precision

    value = mantissa / 10**decimals
    precision = 0.5 * 10.0**-decimals
    assert printed_precision(value) == pytest.approx(precision, rel=1e-12)
    assume(abs(abs(offset) - 1.0) > 1e-6)
    got = value + offset * precision
    spec = ClaimSpec(
        "c", "T", "input", lambda c: Measured(c, status=CALIBRATION, note="built on it"), paper_value=value, abs_tol=9.0
    )
    (row,) = evaluate_claims("p", [spec], got)
    missed = abs(offset) > 1.0
    assert row.verdict == ("calibration missed" if missed else "calibration target")
    assert row.note.startswith("calibration missed") == missed and row.note.endswith("built on it")


@given(holds=st.booleans(), shown=st.text(min_size=1, max_size=20))
def test_a_stated_fact_the_data_lack_is_a_missed_calibration(holds, shown):
    """A qualitative calibration row (a stated data fact the stand-in is built to have) is 'calibration target'
    only when the fact holds in the run; otherwise 'calibration missed', saying so before its note."""
    from dpgrid.core.claims import CALIBRATION, ClaimSpec, Measured, evaluate_claims

    spec = ClaimSpec(
        "c",
        "T",
        "two small clusters",
        lambda c: Measured(c, shown=shown, status=CALIBRATION, note="built on it"),
        paper_value="stated",
    )
    (row,) = evaluate_claims("p", [spec], holds)
    assert row.verdict == ("calibration target" if holds else "calibration missed")
    assert row.reproduced_value == shown and row.note.endswith("built on it")
    assert row.note.startswith("calibration missed") == (not holds)


@given(holds=st.booleans(), quote=st.sampled_from(["", "  ", '"it holds" (Sec. II)']), numeric=st.booleans())
def test_reproduced_needs_a_printed_number_or_sentence(holds, quote, numeric):
    """A row that holds is 'reproduced' only when the paper prints what it is compared with (a number as paper
    value, or the quoted sentence); otherwise it is 'not comparable', saying so.  A row that does not hold differs
    either way."""
    from dpgrid.core.claims import NOTHING_PRINTED, ClaimSpec, Measured, evaluate_claims

    if numeric:
        spec = ClaimSpec(
            "n", "T", "d", lambda c: Measured(1.0 if c else 5.0), paper_value=1.0, abs_tol=0.1, quote=quote
        )
        printed = True
    else:
        spec = ClaimSpec("q", "T", "d", lambda c: Measured(c), paper_value="visual (Fig. 3)", quote=quote)
        printed = bool(quote.strip())
    (row,) = evaluate_claims("p", [spec], holds)
    if not holds:
        assert row.verdict == "differs"
    elif printed:
        assert row.verdict == "reproduced"
    else:
        assert row.verdict == "not comparable" and row.note.startswith(NOTHING_PRINTED)
