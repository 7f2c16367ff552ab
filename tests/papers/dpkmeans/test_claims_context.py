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


@settings(max_examples=30, deadline=None)
@given(
    standin=st.booleans(),
    paper_sized=st.booleans(),
    holds=st.booleans(),
    status=st.sampled_from(["compared", "not comparable"]),
)
def test_population_rows_compare_the_stand_in_only_at_the_papers_sizes(standin, paper_sized, holds, status):
    """A statement about the paper's population (at_paper_sizes) is 'not comparable' on the stand-in at reduced
    sizes, naming them; at the paper's sizes, on other data, and where its own precondition fails, the measure
    decides."""
    from types import SimpleNamespace

    from dpgrid.core.claims import Measured
    from dpgrid.papers.dpkmeans import claim_measures as measures
    from dpgrid.papers.dpkmeans import figure_measures

    raw = Measured(holds, shown="x", note="own", status=status)
    gated = measures.at_paper_sizes(lambda ctx: raw)
    ctx = SimpleNamespace(standin=standin, paper_sized=paper_sized, why_sizes="P = 303, 3 commercial")
    got = gated(ctx)
    if standin and not paper_sized and status == "compared":
        assert got.status == "not comparable" and "P = 303" in got.note and got.value == holds
    else:
        assert got is raw
    for name in ("delta_c_drop", "outliers_removed", "knn_detects_commercial"):
        assert getattr(measures, name).__wrapped__ is not None
    assert figure_measures.fig7_clear_outliers.__wrapped__ is not None
