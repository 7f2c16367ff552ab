"""dpgrid.papers.classdp.claims: claim checks state preconditions (no vacuous pass), the calibration target
row, held-out predictions, every claim id kept. Each check evaluates the spec table (CLAIMS) on a crafted context."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpgrid.core.claims import evaluate_claims
from dpgrid.papers.classdp.claims import CLAIMS
from dpgrid.papers.classdp.claims_context import ForecastDataInfo, context
from dpgrid.papers.classdp.paper import CALIBRATION_TARGET, FIG3_NMSE, FIG4_POINTS, PAPER, PLAIN_MSE

EPS = np.round(np.linspace(0.1, 1.0, 19), 12)
RHOS = [0.45, 0.68571, 1.0, 1.4]
IDS = {
    "classdp-fig4-proposed-below-white",
    "classdp-fig4-gain-largest-at-small-rho",
    "classdp-fig4-no-noise-delta-1",
    "classdp-fig4-tradeoff",
    "classdp-fig4-tradeoff-every-eps",
    "classdp-fig4-white-rho0.68571-eps0.1",
    "classdp-fig4-white-rho0.68571-eps1",
    "classdp-fig4-proposed-rho0.68571-eps0.1",
    "classdp-fig4-proposed-rho0.68571-eps1",
    "classdp-fig4-proposed-eps1-rho0.45",
    "classdp-fig4-proposed-eps1-rho1.4",
    "classdp-fig3-delta",
    "classdp-fig3-release-keeps-accuracy",
    "classdp-fig3-nmse-house1",
    "classdp-fig3-nmse-house2",
    "classdp-fig3-nmse-house3",
    "classdp-fig3-mse-forecast-house1",
    "classdp-fig3-mse-forecast-house2",
    "classdp-fig3-mse-forecast-house3",
}
STANDIN = ForecastDataInfo("synthetic_clustered", 100, 15, 6, 0.8)


def _curves(no_noise, white, proposed, rhos=RHOS):
    """Curves table like results/classdp/forecast/delta_curves.csv from functions delta(rho, eps)."""
    rows = [{"mechanism": "no_noise", "rho": np.nan, "epsilon": e, "delta": no_noise(e)} for e in EPS]
    for r in rhos:
        rows += [{"mechanism": "white", "rho": r, "epsilon": e, "delta": white(r, e)} for e in EPS]
        rows += [{"mechanism": "proposed", "rho": r, "epsilon": e, "delta": proposed(r, e)} for e in EPS]
    return pd.DataFrame(rows)


def _mse(delta=0.5637):
    return pd.DataFrame(
        {
            "house": ["House 1", "House 2", "House 3"],
            "meter_id": ["R1", "R2", "R3"],
            "nmse_proposed": [1.6e-3, 1.2e-3, 1.3e-3],
            "nmse_proposed_expected": [1.5e-3] * 3,
            "nmse_forecast": [1.0e-3] * 3,
            "mse_forecast_kw2": [2.7e-4, 2.3e-4, 1.5e-4],
            "rho": 0.45,
            "epsilon": 0.8,
            "delta": delta,
            "delta_cluster": 0.5,
        }
    )


def _paper_like():
    """Curves through the paper's printed points (linear in eps between them)."""

    def white(r, e):
        return 0.8 - (e - 0.1) / 0.9 * 0.2 + (0.68571 - r) * 0.1

    def prop(r, e):
        return 0.72 - (e - 0.1) / 0.9 * 0.37 + (0.68571 - r) * 0.2 * (r < 0.6) - (r > 1.2) * 0.0

    return _curves(lambda e: 1.0, white, prop)


def _by_id(claims):
    return {c.claim_id: c for c in claims}


def _evaluate(ctx, figures):
    """The rows of the specs of ``figures`` (by target), measured on ``ctx``."""
    return evaluate_claims(PAPER, [s for s in CLAIMS if s.target in figures], ctx, ctx.text_args)


def forecast_claims(curves, mse, *, rhos, info, tol, fig3_rho, fig3_epsilon, sweep=None, mse_defs=None):
    """The Figs. 3-4 rows of the spec table on the forecast curves ``curves``."""
    ctx = context(
        curves,
        curves,
        mse,
        synthetic_rhos=rhos,
        forecast_rhos=rhos,
        info=info,
        tol=tol,
        fig3_rho=fig3_rho,
        fig3_epsilon=fig3_epsilon,
        sweep=sweep,
        mse_defs=mse_defs,
    )
    return _evaluate(ctx, ("fig4", "fig3", "table_mse"))


def synthetic_claims(curves, rhos, tol):
    """The Fig. 2 rows of the spec table on the synthetic curves ``curves``."""
    ctx = context(
        curves,
        curves,
        _mse(),
        synthetic_rhos=rhos,
        forecast_rhos=rhos,
        info=STANDIN,
        tol=tol,
        fig3_rho=0.45,
        fig3_epsilon=0.8,
    )
    return _evaluate(ctx, ("fig2",))


def test_spec_table_has_each_claim_once_with_the_papers_numbers():
    ids = [s.claim_id for s in CLAIMS]
    fig2 = {
        "classdp-fig2-proposed-below-white",
        "classdp-fig2-proposed-below-no-noise",
        "classdp-fig2-gain-shrinks-with-rho",
        "classdp-fig2-tradeoff",
    }
    fig1 = {"classdp-fig1-classes-on-a-line", "classdp-fig1-wishart-covariances"}
    assert len(ids) == len(set(ids)) and set(ids) == IDS | fig2 | fig1 | {"classdp_privacy_audit"}
    spec = {s.claim_id: s for s in CLAIMS}
    for p in FIG4_POINTS:
        assert spec[p.claim_id].paper_value == p.value
    for k, (nmse, plain) in enumerate(zip(FIG3_NMSE, PLAIN_MSE)):
        assert spec[f"classdp-fig3-nmse-house{k + 1}"].paper_value == nmse
        assert spec[f"classdp-fig3-mse-forecast-house{k + 1}"].paper_value == plain


def test_fig3_description_names_the_release_configuration():
    c = _by_id(
        forecast_claims(_paper_like(), _mse(), rhos=RHOS, info=STANDIN, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8)
    )
    assert c["classdp-fig3-delta"].description.startswith("Fig. 3 release (rho = 0.45): delta at eps = 0.8 ")
    other = _mse().assign(rho=1.0, epsilon=0.5)
    c = _by_id(forecast_claims(_paper_like(), other, rhos=RHOS, info=STANDIN, tol=1e-8, fig3_rho=1.0, fig3_epsilon=0.5))
    assert c["classdp-fig3-delta"].description.startswith("Fig. 3 release (rho = 1): delta at eps = 0.5 ")


def test_every_claim_id_is_kept_and_the_target_is_marked():
    c = _by_id(
        forecast_claims(_paper_like(), _mse(), rhos=RHOS, info=STANDIN, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8)
    )
    assert IDS <= set(c)
    tgt = c[CALIBRATION_TARGET.claim_id]
    assert tgt.verdict == "calibration target" and "within-cluster similarity" in tgt.note
    # held-out numbers are compared (not 'not comparable') on the stand-in
    assert c["classdp-fig4-proposed-rho0.68571-eps1"].verdict == "reproduced"
    assert c["classdp-fig3-delta"].verdict == "reproduced"
    assert sum(x.verdict == "calibration target" for x in c.values()) == 1


def test_other_data_makes_household_numbers_not_comparable_with_reason():
    info = ForecastDataInfo("synthetic", 100, 15, 6)
    c = _by_id(forecast_claims(_paper_like(), _mse(), rhos=RHOS, info=info, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8))
    for p in FIG4_POINTS:
        assert c[p.claim_id].verdict == "not comparable" and "generic synthetic" in c[p.claim_id].note
    assert c["classdp-fig3-delta"].verdict == "not comparable"
    # qualitative claims about the mechanism stay comparable on any household data
    assert c["classdp-fig4-proposed-below-white"].verdict == "reproduced"
    small = ForecastDataInfo("synthetic_clustered", 24, 15, 3, 0.8)
    c = _by_id(forecast_claims(_paper_like(), _mse(), rhos=RHOS, info=small, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8))
    assert c[CALIBRATION_TARGET.claim_id].verdict == "not comparable" and "sizes" in c[CALIBRATION_TARGET.claim_id].note


def test_curves_at_one_cannot_pass_vacuously():
    """Real data: every delta at 1 - 1e-7. 'Proposed below white' and 'decreases with rho' would hold by
    numerical noise; they must be 'not comparable' with the reason."""
    flat = _curves(lambda e: 1.0, lambda r, e: 1 - 1e-7, lambda r, e: 1 - 2e-7 - 1e-9 * r)
    c = _by_id(
        forecast_claims(
            flat, _mse(), rhos=RHOS, info=ForecastDataInfo("csv", 100, 30, 6), tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8
        )
    )
    for cid in ("classdp-fig4-proposed-below-white", "classdp-fig4-tradeoff", "classdp-fig4-gain-largest-at-small-rho"):
        assert c[cid].verdict == "not comparable" and "precondition failed" in c[cid].note
    s = _by_id(synthetic_claims(flat, RHOS, 1e-8))
    assert s["classdp-fig2-proposed-below-white"].verdict == "not comparable"
    assert s["classdp-fig2-gain-shrinks-with-rho"].verdict == "not comparable"


def test_informative_curves_are_judged():
    crossing = _curves(lambda e: 0.9, lambda r, e: 0.7, lambda r, e: 0.75 if e > 0.5 else 0.6)
    c = _by_id(forecast_claims(crossing, _mse(), rhos=RHOS, info=STANDIN, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8))
    assert c["classdp-fig4-proposed-below-white"].verdict == "differs"
    rising = _curves(lambda e: 1.0, lambda r, e: 0.9, lambda r, e: 0.3 + 0.2 * r)
    c = _by_id(forecast_claims(rising, _mse(), rhos=RHOS, info=STANDIN, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8))
    assert c["classdp-fig4-tradeoff"].verdict == "differs"
    assert c["classdp-fig4-no-noise-delta-1"].verdict == "reproduced"
    far = _curves(lambda e: 0.5, lambda r, e: 0.99, lambda r, e: 0.98)
    c = _by_id(forecast_claims(far, _mse(0.98), rhos=RHOS, info=STANDIN, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8))
    nn = c["classdp-fig4-no-noise-delta-1"]
    assert nn.verdict == "differs" and "sweep" in nn.note
    assert c["classdp-fig3-delta"].verdict == "differs" and "non-increasing in eps" in c["classdp-fig3-delta"].note


def test_fig3_at_another_configuration_is_not_comparable():
    c = _by_id(
        forecast_claims(_paper_like(), _mse(), rhos=RHOS, info=STANDIN, tol=1e-8, fig3_rho=1.0, fig3_epsilon=0.8)
    )
    assert c["classdp-fig3-delta"].verdict == "not comparable" and "configured" in c["classdp-fig3-delta"].note


def test_missing_grid_point_is_not_comparable():
    c = _by_id(
        forecast_claims(
            _paper_like().query("rho != 0.68571 or mechanism == 'no_noise'"),
            _mse(),
            rhos=[0.45, 1.0, 1.4],
            info=STANDIN,
            tol=1e-8,
            fig3_rho=0.45,
            fig3_epsilon=0.8,
        )
    )
    assert c[CALIBRATION_TARGET.claim_id].verdict == "not comparable"
    assert "not on the configured grid" in c[CALIBRATION_TARGET.claim_id].note


@pytest.mark.parametrize("gains_decrease", [True, False])
def test_synthetic_gain_claim(gains_decrease):
    def prop(r, e):
        return 0.5 - (0.1 / r if gains_decrease else 0.05 * r)

    c = _by_id(synthetic_claims(_curves(lambda e: 0.9, lambda r, e: 0.6, prop), RHOS, 1e-8))
    assert c["classdp-fig2-gain-shrinks-with-rho"].verdict == ("reproduced" if gains_decrease else "differs")
    assert c["classdp-fig2-proposed-below-white"].verdict == "reproduced"
    assert c["classdp-fig2-proposed-below-no-noise"].verdict == "reproduced"


def test_calibration_bisection_finds_the_bracket_and_reuses_evaluations():
    from dpgrid.papers.classdp.calibration import calibrate_similarity

    calls = []

    def f(lam):  # decreasing, crosses 0.8 at lam = 0.837
        calls.append(lam)
        return 1.0 - 0.2 * lam / 0.837

    res = calibrate_similarity(f, 0.8, resolution=0.01)
    assert res["bracketed"] and res["similarity"] == pytest.approx(0.84)
    assert res["bracket"][1] - res["bracket"][0] == pytest.approx(0.01)
    assert len(calls) == len(set(calls))  # no lambda evaluated twice
    assert 0.95 not in calls and 1.0 not in calls  # the grid walk stops at the bracket
    res = calibrate_similarity(lambda lam: 0.5, 0.8)
    assert not res["bracketed"]


def test_differing_rows_point_to_the_sweeps_with_their_numbers():
    """A held-out row that differs names the similarity sweep's deltas for its (mechanism, rho, eps) and, for
    the MSE rows, the reading of forecast/mse_definitions.csv closest to the printed number."""
    sweep = pd.DataFrame(
        {"similarity": [0.9, 0.99], "mechanism": "proposed", "rho": 0.68571, "epsilon": 1.0, "delta": [0.97, 0.61]}
    )
    defs = pd.DataFrame(
        {
            "house": "House 1",
            "meter_id": "R1",
            "prediction": "proposed_one_draw",
            "metric": ["nmse_sum_p2", "nmse_log_w", "mse_kw2"],
            "value": [0.08, 0.0013, 0.3],
        }
    )
    far = _curves(lambda e: 0.9, lambda r, e: 0.95, lambda r, e: 0.9)
    mse = _mse().assign(nmse_proposed=[0.08, 0.3, 0.1])
    c = _by_id(
        forecast_claims(
            far, mse, rhos=RHOS, info=STANDIN, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8, sweep=sweep, mse_defs=defs
        )
    )
    row = c["classdp-fig4-proposed-rho0.68571-eps1"]
    assert row.verdict == "differs" and "0.9: 0.970, 0.99: 0.610" in row.note
    assert "similarity_sweep.csv" not in c["classdp-fig4-proposed-eps1-rho1.4"].note  # no sweep point for it
    n1 = c["classdp-fig3-nmse-house1"]
    assert n1.verdict == "differs" and "nmse_log_w = 0.0013" in n1.note


def test_calibration_from_a_sweep_interpolates_between_the_bracketing_points():
    from dpgrid.papers.classdp.calibration import interpolate_from_sweep
    from dpgrid.papers.classdp.paper import ClassdpConfigError

    t = CALIBRATION_TARGET
    sw = pd.DataFrame(
        {
            "similarity": [0.98, 0.99, 0.998, 0.99],
            "mechanism": ["white"] * 3 + ["proposed"],
            "rho": t.rho,
            "epsilon": t.epsilon,
            "delta": [0.95, 0.85, 0.65, 0.1],
        }
    )
    res = interpolate_from_sweep(sw)
    assert res["bracket"] == [0.99, 0.998]
    assert res["similarity"] == pytest.approx(0.99 + 0.05 / 0.2 * 0.008)  # 0.992
    with pytest.raises(ClassdpConfigError, match="does not bracket"):
        interpolate_from_sweep(sw.assign(delta=0.9))


def test_tradeoff_needs_an_informative_white_curve():
    """Issue 28 (3): on real data the white-noise delta stayed within 1e-6 of 1, the proposed one within a few 1e-5
    (printed 1.0000 at every rho) but spread by more than 100 x the evaluator's accuracy, and the trade-off row said
    reproduced while its neighbours were not comparable. It now has their gate (the white curve must leave 1); the
    same proposed curve next to an informative white curve is judged, shown as 1 - delta where it rounds to 1."""
    proposed = lambda r, e: 1 - 1e-5 * r  # noqa: E731  (decreases with rho: the trade-off 'holds')
    flat_white = _curves(lambda e: 1.0, lambda r, e: 1 - 1e-7, proposed)
    c = _by_id(forecast_claims(flat_white, _mse(), rhos=RHOS, info=STANDIN, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8))
    row = c["classdp-fig4-tradeoff"]
    assert row.verdict == "not comparable" and "precondition failed: every white delta is within" in row.note
    assert "rho 1.4: 1 - 1.4e-05" in row.reproduced_value
    white = _curves(lambda e: 1.0, lambda r, e: 0.9, proposed)
    row = _by_id(forecast_claims(white, _mse(), rhos=RHOS, info=STANDIN, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8))[
        "classdp-fig4-tradeoff"
    ]
    assert row.verdict == "reproduced" and "rho 0.45: 1 - 4.5e-06" in row.reproduced_value


def test_gain_largest_at_small_rho_needs_a_gain():
    """Issue 28 (3): with the proposed mechanism worse than white noise at every rho (every gain negative) the row
    said reproduced because the smallest rho had the least negative gain; now: not comparable, gains shown."""
    worse = _curves(lambda e: 1.0, lambda r, e: 0.5, lambda r, e: 0.6 + 0.05 * r)
    c = _by_id(forecast_claims(worse, _mse(), rhos=RHOS, info=STANDIN, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8))
    row = c["classdp-fig4-gain-largest-at-small-rho"]
    assert row.verdict == "not comparable" and "no gain over white noise" in row.note
    assert "mean gain per rho (ascending): -0.1" in row.reproduced_value
    assert c["classdp-fig4-proposed-below-white"].verdict == "differs"
    better = _curves(lambda e: 1.0, lambda r, e: 0.9, lambda r, e: 0.6 + 0.05 * r)
    c = _by_id(forecast_claims(better, _mse(), rhos=RHOS, info=STANDIN, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8))
    assert c["classdp-fig4-gain-largest-at-small-rho"].verdict == "reproduced"


def test_forecast_figure_captions_count_the_meters_of_any_source():
    """Issue 28 (4): a csv source states no meter count in its spec: the caption printed 'Data: csv ( meters)'.
    The count now comes from the forecast model's summary (households read / used); Fig. 3's title prints
    1 - delta where delta would print as 1.0000."""
    from dpgrid.papers.classdp.figures import data_caption, readable_delta

    spec = {"source": "csv", "path": "readings.csv", "step_minutes": 30}
    assert data_caption(spec, {"households": 40, "used": 38}) == (
        "Data: csv (40 meters, 38 used), not the paper's households."
    )
    assert data_caption(spec, {"households": 40, "used": 40}).startswith("Data: csv (40 meters),")
    assert "( meters)" not in data_caption(spec) and "meter count not stated" in data_caption(spec)
    assert data_caption({"source": "synthetic", "n_residential": 12}) == (
        "Data: synthetic (12 meters), not the paper's households."
    )
    # windows of one home are called so, not meters
    pseudo = {"source": "uci_household", "pseudo_meters": 6, "step_minutes": 60}
    assert data_caption(pseudo, {"households": 6, "used": 5}) == (
        "Data: uci_household (6 pseudo-meters (windows of one home), 5 used), not the paper's households."
    )
    assert readable_delta(0.5637) == "0.5637" and readable_delta(1 - 3e-6) == "1 - 3e-06"


def test_the_material_gain_is_half_the_papers_smallest_printed_gap():
    """'much better performance': the margin is derived from the printed Fig. 4 points at rho = 0.68571."""
    from dpgrid.papers.classdp.claims import MATERIAL_GAIN

    pts = {(p.mechanism, p.epsilon): p.value for p in FIG4_POINTS if p.rho == 0.68571}
    gaps = [pts["white", e] - pts["proposed", e] for e in (0.1, 1.0)]
    assert MATERIAL_GAIN == pytest.approx(min(gaps) / 2)


@settings(max_examples=20, deadline=None)
@given(gains=st.lists(st.floats(0.0, 0.3), min_size=4, max_size=4))
def test_gain_largest_at_small_rho_needs_the_largest_and_a_material_gain(gains):
    """The row holds iff the mean gain (white - proposed, averaged over eps) at the smallest rho is the largest and at
    least half the paper's smallest printed gap (0.04), computed here from the curves, not by the claims code."""
    gain = dict(zip(RHOS, gains))
    curves = _curves(lambda e: 1.0, lambda r, e: 0.95, lambda r, e: 0.95 - gain[r])
    c = _by_id(forecast_claims(curves, _mse(), rhos=RHOS, info=STANDIN, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8))
    row = c["classdp-fig4-gain-largest-at-small-rho"]
    table = curves[curves["mechanism"] != "no_noise"].pivot_table(index="rho", columns="mechanism", values="delta")
    mean_gain = (table["white"] - table["proposed"]).sort_index()
    if mean_gain.max() <= 1e-7:
        assert row.verdict == "not comparable"
        return
    expected = mean_gain.iloc[0] >= mean_gain.max() - 1e-7 and mean_gain.iloc[0] >= 0.04
    assert row.verdict == ("reproduced" if expected else "differs")
    if mean_gain.iloc[0] < 0.04 and mean_gain.iloc[0] >= mean_gain.max() - 1e-7:
        assert "material gain" in row.note


@settings(max_examples=15, deadline=None)
@given(white=st.floats(0.5, 0.95))
def test_a_missed_calibration_target_says_so_and_the_rows_resting_on_it_too(white):
    """The white delta at (0.68571, 0.1) is the stand-in's calibration target, printed 0.8 (precision +-0.05): a run
    beyond that is 'calibration missed', and every other row at rho = 0.68571 names the miss in its note."""
    base = _paper_like()
    sel = (base["mechanism"] == "white") & (base["rho"] == 0.68571) & np.isclose(base["epsilon"], 0.1)
    base.loc[sel, "delta"] = white
    c = _by_id(forecast_claims(base, _mse(), rhos=RHOS, info=STANDIN, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8))
    missed = abs(white - 0.8) > 0.05 + 1e-12
    assert c[CALIBRATION_TARGET.claim_id].verdict == ("calibration missed" if missed else "calibration target")
    resting = [p.claim_id for p in FIG4_POINTS if p.rho == 0.68571 and p is not CALIBRATION_TARGET]
    assert resting and all(("missed calibration" in c[i].note) == missed for i in resting)


def _fig2_rows(proposed, rhos=RHOS):
    return _by_id(synthetic_claims(_curves(lambda e: 1.0, lambda r, e: 0.95, proposed, rhos), rhos, 1e-8))


@settings(max_examples=15, deadline=None)
@given(levels=st.lists(st.floats(0.05, 0.9), min_size=4, max_size=4))
def test_fig2_tradeoff_holds_iff_the_mean_proposed_delta_falls_at_every_rho_step(levels):
    level = dict(zip(RHOS, levels))
    row = _fig2_rows(lambda r, e: level[r] - 0.01 * e)["classdp-fig2-tradeoff"]
    means = [level[r] - 0.01 * float(np.mean(EPS)) for r in sorted(RHOS)]
    assert row.verdict == ("reproduced" if all(b < a - 1e-7 for a, b in zip(means, means[1:])) else "differs")


@pytest.mark.parametrize("offset", [0.0, 0.3])
def test_fig1_rows_check_collinear_means_and_positive_definite_covariances(offset):
    from types import SimpleNamespace

    from dpgrid.core.claims import evaluate_claims
    from dpgrid.mechanisms.gaussian_class import ClassGaussianModel

    rng = np.random.default_rng(0)
    means = np.array([[0.0, 0.0], [1.0, 2.0], [2.0, 4.0], [3.0, 6.0 + offset]])
    w = rng.standard_normal((4, 2, 2))
    covs = w @ np.transpose(w, (0, 2, 1))
    edges = np.array([(i, j) for i in range(4) for j in range(4) if i != j])
    model = ClassGaussianModel(means, covs, edges, ["a", "b", "c", "d"])
    rows = _by_id(evaluate_claims(PAPER, [s for s in CLAIMS if s.target == "fig1"], SimpleNamespace(fig1_model=model)))
    assert rows["classdp-fig1-classes-on-a-line"].verdict == ("reproduced" if offset == 0 else "differs")
    assert rows["classdp-fig1-wishart-covariances"].verdict == "reproduced"


@pytest.mark.parametrize("factor", [1.2, 1.9, 2.1, 5.0])
def test_release_keeps_accuracy_iff_the_release_error_is_at_most_twice_the_forecast_error(factor):
    mse = _mse()
    mse["nmse_proposed_expected"] = mse["nmse_forecast"] * factor
    c = _by_id(forecast_claims(_paper_like(), mse, rhos=RHOS, info=STANDIN, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8))
    ratio = (mse["nmse_proposed_expected"] / mse["nmse_forecast"]).max()
    row = c["classdp-fig3-release-keeps-accuracy"]
    assert row.verdict == ("reproduced" if ratio <= 2.0 else "differs")
    # the note says where the factor comes from, whatever the verdict
    assert "the paper's own release / forecast ratios of Houses 1-3 (5.9, 5.3, 8.4" in row.note


def test_the_release_error_factor_is_below_the_papers_own_ratios():
    """The factor 2 of the release row is not looser than the paper's usage: the paper calls its own houses' release
    errors (journal NMSE) over their forecast errors (earlier version's MSE) 'not significant', ratios 5.3-8.4."""
    from dpgrid.papers.classdp.claims import PAPER_RELEASE_FORECAST_RATIOS, RELEASE_ERROR_FACTOR

    ratios = [r / f for r, f in zip(FIG3_NMSE, PLAIN_MSE)]
    assert PAPER_RELEASE_FORECAST_RATIOS == pytest.approx(ratios)
    assert [round(r, 1) for r in ratios] == [5.9, 5.3, 8.4]
    assert RELEASE_ERROR_FACTOR <= min(ratios)


@settings(max_examples=30, deadline=None)
@given(
    levels=st.lists(st.floats(0.3, 0.9), min_size=4, max_size=4),
    slopes=st.lists(st.floats(-0.3, 0.3), min_size=4, max_size=4),
)
def test_tradeoff_every_eps_holds_iff_the_proposed_delta_falls_along_rho_at_every_eps(levels, slopes):
    """Sec. VI-B-2 "with rho increasing ..., the (eps, delta) privacy is strengthened": the row holds iff at every eps
    of the grid the proposed delta falls at every rho step by more than 10 x the evaluator's accuracy, computed here
    from the curves; curves whose order along rho flips with eps (crossing lines) must fail even where eps = 1 or the
    mean over eps would pass."""
    level, slope = dict(zip(RHOS, levels)), dict(zip(RHOS, slopes))
    proposed = lambda r, e: level[r] + slope[r] * (e - 0.55)  # noqa: E731
    curves = _curves(lambda e: 1.0, lambda r, e: 0.95, proposed)
    c = _by_id(forecast_claims(curves, _mse(), rhos=RHOS, info=STANDIN, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8))
    table = curves[curves["mechanism"] == "proposed"].pivot(index="epsilon", columns="rho", values="delta")
    table = table[sorted(table.columns)]
    expected = bool((table.diff(axis=1).iloc[:, 1:] < -1e-7).all().all())
    assert c["classdp-fig4-tradeoff-every-eps"].verdict == ("reproduced" if expected else "differs")


def test_tradeoff_every_eps_is_stricter_than_the_eps1_and_mean_rows():
    """Lines in eps that cross: at eps = 1 (and on the mean over eps) the delta falls with rho, at eps = 0.1 it rises.
    The eps = 1 row holds, the general row does not; ties along rho fail the general row (strict)."""
    crossing = _curves(lambda e: 1.0, lambda r, e: 0.95, lambda r, e: 0.6 - 0.1 * r * (e - 0.3))
    c = _by_id(forecast_claims(crossing, _mse(), rhos=RHOS, info=STANDIN, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8))
    assert c["classdp-fig4-tradeoff"].verdict == "reproduced"
    row = c["classdp-fig4-tradeoff-every-eps"]
    assert row.verdict == "differs" and "eps = 0.1" in row.note
    tie = _curves(lambda e: 1.0, lambda r, e: 0.95, lambda r, e: 0.6 - 0.1 * min(r, 1.0))  # equal at rho 1 and 1.4
    c = _by_id(forecast_claims(tie, _mse(), rhos=RHOS, info=STANDIN, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8))
    assert c["classdp-fig4-tradeoff-every-eps"].verdict == "differs"
    flat_white = _curves(lambda e: 1.0, lambda r, e: 1 - 1e-7, lambda r, e: 1 - 1e-5 * r)
    c = _by_id(forecast_claims(flat_white, _mse(), rhos=RHOS, info=STANDIN, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8))
    assert c["classdp-fig4-tradeoff-every-eps"].verdict == "not comparable"


def test_fewer_fig3_households_than_houses_make_their_rows_not_applicable():
    """Data with two usable households: House 3's rows say they need three, House 1-2's are measured."""
    info = ForecastDataInfo("synthetic", 100, 15, 6)
    two = _mse().iloc[:2]
    c = _by_id(forecast_claims(_paper_like(), two, rhos=RHOS, info=info, tol=1e-8, fig3_rho=0.45, fig3_epsilon=0.8))
    row = c["classdp-fig3-nmse-house3"]
    assert row.verdict == "not comparable" and "not applicable: House 3 needs >= 3 Fig. 3 households" in row.note
    assert "the run has 2" in row.note
    assert "not applicable" not in c["classdp-fig3-nmse-house2"].note
