"""blowfish claim rows on synthetic run tables: 'low compared to the observed rate range' is the stated criterion
computed here (RMS relative error per step against the day's relative rate range)."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from dpgrid.core.claims import evaluate_claims
from dpgrid.papers.blowfish.claims import CLAIMS
from dpgrid.papers.blowfish.paper import PAPER


@settings(max_examples=40, deadline=None)
@given(
    amplitude=st.floats(0.01, 0.5),
    err_b=st.floats(1e-4, 0.2),
    err_n=st.floats(1e-4, 0.2),
    printed=st.floats(2e-4, 2e-2),
)
def test_rmsre_magnitude_is_order_1e3_and_low_against_the_rate_range(amplitude, err_b, err_n, printed):
    hours = np.arange(96)
    rate = 100.0 * (1.0 + amplitude * np.sin(2 * np.pi * hours / 96))
    profiles = pd.DataFrame({"seed": 0, "step": hours, "rate_optimal": rate})
    runs = pd.DataFrame(
        {
            "rmsre_printed_blowfish": [printed],
            "rmsre_printed_naive": [printed],
            "rms_relative_blowfish": [err_b],
            "rms_relative_naive": [err_n],
        }
    )
    (row,) = evaluate_claims(
        PAPER,
        [s for s in CLAIMS if s.claim_id == "blowfish_rmsre_magnitude"],
        SimpleNamespace(runs=runs, profiles=profiles),
    )
    rel_range = (rate.max() - rate.min()) / rate.mean()
    order = np.floor(np.log10(printed)) == -3
    low = max(err_b, err_n) < 0.1 * rel_range
    assert row.verdict == ("reproduced" if order and low else "differs")
