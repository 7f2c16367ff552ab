"""Notes written for the paper-matched stand-in are not shown on other households (real data, the generic synthetic
population), and an all-zero household's normalised MSE is undefined (an empty cell), not inf."""

import ast
import inspect

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dpgrid.papers.classdp import claims
from dpgrid.papers.classdp.claims_context import SWEEPS, explanation
from dpgrid.papers.classdp.paper import STANDIN_SOURCE
from dpgrid.papers.classdp.stages import forecast_release


@settings(max_examples=30, deadline=None)
@given(
    source=st.sampled_from(["csv", "synthetic", "uci_household", "uci_eld", "other"]),
    key=st.sampled_from(sorted(SWEEPS)),
)
def test_explanations_about_the_stand_in_are_said_of_the_stand_in_only(source, key):
    assert "stand-in" not in explanation(source, key)
    assert explanation(STANDIN_SOURCE, key) == SWEEPS[key]  # the stand-in's notes as they are


def test_every_claim_note_takes_its_explanation_through_the_data_source():
    """No note of the classdp claims reads SWEEPS directly (it would bypass the data source's check)."""
    tree = ast.parse(inspect.getsource(claims))
    direct = [
        n.lineno for n in ast.walk(tree) if isinstance(n, ast.Subscript) and getattr(n.value, "id", "") == "SWEEPS"
    ]
    assert direct == []


@settings(max_examples=50, deadline=None)
@given(
    truth=st.lists(st.floats(0, 5, allow_nan=False), min_size=1, max_size=8),
    err=st.floats(0, 100, allow_nan=False),
)
def test_normalised_mse_is_finite_or_undefined(truth, err):
    t = np.asarray(truth)
    got = forecast_release._normalised(err, t)
    if np.sum(t**2) > 0:
        assert got == err / float(np.sum(t**2))
    else:
        assert np.isnan(got)  # an all-zero household: written as an empty cell, never inf
