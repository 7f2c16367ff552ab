"""results/privacy_audits.csv and the claim that reads it (dpgrid.privacy.audit_table)."""

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpgrid.privacy.audit_table import AuditTableError, audit_measured, check_audit_table
from dpgrid.privacy.blackbox_audit import AUDIT_COLUMNS, HOLDS, VIOLATED, VIOLATED_PAPER


def _table(verdicts, paper="p"):
    rows = []
    for i, v in enumerate(verdicts):
        row = dict.fromkeys(AUDIT_COLUMNS, 0.0)
        row.update(paper=paper, mechanism=f"m{i}", setting="s", pair="x", attack="a", verdict=v)
        rows.append(row)
    return pd.DataFrame(rows)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([HOLDS, VIOLATED, VIOLATED_PAPER]), min_size=1, max_size=8))
def test_reproduced_only_when_every_row_holds(verdicts):
    m = audit_measured(pd.concat([_table(verdicts), _table([HOLDS], "other")]), "p")
    assert m.value == all(v == HOLDS for v in verdicts)
    assert (m.note == "") == m.value


def test_a_paper_without_rows_is_not_comparable_and_bad_tables_are_named():
    assert audit_measured(_table([HOLDS], "other"), "p").status == "not comparable"
    with pytest.raises(AuditTableError, match="verdict"):
        check_audit_table(_table(["consistent"]), "x.csv")
    with pytest.raises(AuditTableError, match="missing column"):
        check_audit_table(_table([HOLDS]).drop(columns="delta_lower_bound"), "x.csv")
