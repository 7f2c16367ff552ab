"""dpgrid.papers.dpkmeans.claims_context: the Fig. 11 sweep notes name a crossing only where the sweep has one and
never print a non-number (real data whose synthetic bands never reach the IoU target)."""

import re

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from dpgrid.papers.dpkmeans.claims_context import _sweep_notes

CCFG = {"min_band_iou": 0.5, "max_negative_share_gap": 0.01}


@settings(max_examples=40, deadline=None)
@given(
    ious=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=6),
    negs=st.lists(st.floats(0.0, 0.5), min_size=6, max_size=6),
    mech=st.sampled_from(["wishart", "analyze_gauss"]),
)
def test_sweep_notes_name_a_crossing_only_where_there_is_one(ious, negs, mech):
    eps = np.geomspace(0.5, 100.0, len(ious))
    sweep = pd.DataFrame(
        {
            "axis": "eps_w",
            "cov_mechanism": mech,
            "debias": False,
            "delta_w": 1e-5,
            "eps_w": eps,
            "mean_iou": ious,
            "neg_synthetic": negs[: len(ious)],
            "neg_true": 0.0,
        }
    )
    synth = {"cov_mechanism": mech, "debias_wishart": False, "delta_w": 1e-5, "eps_w": 30.0}
    iou_note, neg_note = _sweep_notes(sweep, synth, CCFG)
    for note in (iou_note, neg_note):
        assert not re.search(r"\bnan\b|\binf\b", note, re.IGNORECASE), note
    reaches = max(ious) >= CCFG["min_band_iou"]
    assert ("reaches IoU 0.5 at eps_w" in iou_note) == reaches
    assert ("stays below IoU 0.5 at every swept eps_w" in iou_note) == (not reaches)
    within = any(n <= CCFG["max_negative_share_gap"] for n in negs[: len(ious)])
    assert ("of the true one from eps_w" in neg_note) == within
