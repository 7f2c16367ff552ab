"""Claims table rows of the classdp paper (results/classdp/claims.csv).

Replication design (docs/classdp.md, "Stand-in population"): the forecast experiment runs on the paper-matched
stand-in (:mod:`dpgrid.data.synthetic_clustered`), whose one free property, the within-cluster similarity, is
calibrated on **one** printed number, :data:`~dpgrid.experiments.classdp.paper.CALIBRATION_TARGET`; that row has
the verdict ``calibration target``, every other printed number is a held-out prediction.

Every check states its precondition; when it fails the row is ``not comparable`` with the reason:

* numbers that depend on the households (Figs. 3-4 values): the data must be the paper-matched stand-in
  (source ``synthetic_clustered``, 100 households, 15-minute step, 6 k-means clusters);
* "A below B" and "decreases with rho" statements: the curves must be informative, i.e. differ from 1 (and
  from each other) by more than the delta evaluator's accuracy; otherwise "holds" would be decided by
  numerical noise (a vacuous pass, e.g. every delta at 1 - 1e-7 on real data).

Rows that differ point to the sweep that explains them: ``forecast/similarity_sweep.csv`` (delta vs the
stand-in's similarity), ``forecast/mse_definitions.csv`` (every reading of the undefined MSE), and
``exact_delta.csv`` (hockey-stick vs PDP delta).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpgrid.claims import Claim, boolean_claim, calibration_target_claim, fmt, numeric_claim, write_claims
from dpgrid.experiments.classdp.paper import (
    CALIBRATION_TARGET,
    FIG3,
    FIG3_NMSE,
    FIG4_POINTS,
    NO_NOISE_DELTA,
    PAPER,
    PAPER_DATA,
    PLAIN_MSE,
    STANDIN_SOURCE,
    TOL,
    ClassdpConfigError,
)
from dpgrid.io import read_json, read_table

#: tolerances of the comparisons (paper.TOL): deltas from the text, Fig. 3's delta, the no-noise delta, the MSEs
TD, T3, TN, TM = TOL["delta_text"], TOL["fig3_delta"], TOL["no_noise"], TOL["mse_rel"]

#: Where each remaining difference is explained (docs/classdp.md, "Fidelity").
SWEEPS = {
    "similarity": "delta vs the stand-in's within-cluster similarity: forecast/similarity_sweep.csv, "
    "fig_similarity_sweep",
    "forecastability": "the stand-in's households are far less forecastable than the paper's (ARMA forecast "
    "normalised MSE ~0.1-0.3 vs the paper's ~1e-3): large forecast covariances make every "
    "delta flatter in eps (docs/classdp.md)",
    "mse": "every reading of the undefined (normalised) MSE: forecast/mse_definitions.csv",
    "inconsistent": "the paper's Fig. 3 delta(0.8) = 0.5637 at rho = 0.45 cannot be the same sup-over-edges "
    "curve as Fig. 4's delta(1) = 0.84 at rho = 0.45 (delta is non-increasing in eps)",
}


@dataclass(frozen=True)
class ForecastDataInfo:
    """What the checks need to know about the households of the forecast experiment."""

    source: str  # data.experiments.<...>.source
    households: int  # households used (after ARMA exclusions)
    step_minutes: int
    n_clusters: int  # classdp.forecast.n_clusters (k-means)
    similarity: float | None = None  # within_cluster_similarity of the stand-in

    def paper_matched(self) -> tuple[bool, str]:
        """(is the paper-matched stand-in, reason if not)."""
        if self.source != STANDIN_SOURCE:
            what = "the generic synthetic population" if self.source == "synthetic" else f"real data ({self.source})"
            return False, (
                f"the households are {what}, not the paper-matched stand-in (synthetic_clustered); "
                "the number depends on the households"
            )
        got = {"households": self.households, "step_minutes": self.step_minutes, "clusters": self.n_clusters}
        bad = {k: v for k, v in got.items() if v != PAPER_DATA[k]}
        if bad:
            return False, f"the stand-in is not at the paper's stated sizes: {bad} (paper {PAPER_DATA})"
        return True, ""

    def describe(self) -> str:
        if self.source == STANDIN_SOURCE:
            return (
                f"paper-matched stand-in ({self.households} households, {self.step_minutes} min, "
                f"{self.n_clusters} clusters, within-cluster similarity {self.similarity:g})"
            )
        return f"{self.source} data ({self.households} households)"


# ------------------------------------------------------------------------------------------
# curve helpers


def curve(df: pd.DataFrame, mechanism: str, rho: float | None = None) -> pd.Series:
    """delta by epsilon of one mechanism (rho None: the no-noise curve)."""
    sel = df["mechanism"] == mechanism
    sel &= df["rho"].isna() if rho is None else np.isclose(df["rho"], rho)
    out = df[sel].set_index("epsilon")["delta"].sort_index()
    if out.empty:
        raise ClassdpConfigError(f"curves table has no {mechanism} curve for rho={rho}")
    return out


def delta_at(df: pd.DataFrame, mechanism: str, rho: float | None, eps: float) -> float | None:
    """delta of the curve at eps, None if that (rho, eps) is not on the grid."""
    sel = df["mechanism"] == mechanism
    sel &= df["rho"].isna() if rho is None else np.isclose(df["rho"], rho)
    d = df[sel & np.isclose(df["epsilon"], eps)]
    return float(d["delta"].iloc[0]) if len(d) == 1 else None


def _margins(df, upper: str, lower: str, rhos) -> np.ndarray:
    out = []
    for r in rhos:
        u, lo = curve(df, upper, r), curve(df, lower, r)
        if not np.array_equal(u.index.to_numpy(), lo.index.to_numpy()):
            raise ClassdpConfigError("curves on different eps grids cannot be compared; rebuild the curves tables")
        out.append((u - lo).to_numpy())
    return np.concatenate(out)


def _informative(df, mechanism: str, rhos, tol: float) -> tuple[bool, str]:
    """Precondition of an 'A below B' claim: the curve leaves 1 by more than the evaluator's accuracy."""
    d = np.concatenate([curve(df, mechanism, r).to_numpy() for r in (rhos if rhos is not None else [None])])
    gap = float(np.max(1.0 - d))
    need = 100.0 * tol
    if gap <= need:
        return False, (
            f"every {mechanism} delta is within {gap:.2g} of 1 (<= 100 x the evaluator tolerance "
            f"{tol:g}): the curves carry no information to compare"
        )
    return True, ""


def _below_claim(claim_id, target, description, df, upper, lower, rhos, tol, note_differs, upper_rhos=True):
    ok, reason = _informative(df, upper, rhos if upper_rhos else None, tol)
    if not ok:
        return boolean_claim(
            claim_id,
            PAPER,
            target,
            description,
            False,
            reproduced_value="-",
            comparable=False,
            note=f"precondition failed: {reason}",
        )
    if upper_rhos:
        m = _margins(df, upper, lower, rhos)
    else:
        base = curve(df, upper)
        m = np.concatenate([(base - curve(df, lower, r)).to_numpy() for r in rhos])
    worst = float(m.min())
    holds = worst > 10.0 * tol
    return boolean_claim(
        claim_id,
        PAPER,
        target,
        description,
        holds,
        reproduced_value=f"{'holds' if holds else 'does not hold'} (min margin {worst:.3g})",
        note="" if holds else note_differs,
    )


# ------------------------------------------------------------------------------------------
# claims


def synthetic_claims(curves: pd.DataFrame, rhos, tol: float) -> list[Claim]:
    """Fig. 2 (Sec. VI-A): proposed < white, proposed <= no noise, gain shrinks slightly with rho."""
    out = [
        _below_claim(
            "classdp-fig2-proposed-below-white",
            "fig2",
            "Synthetic data: proposed delta < white-noise delta at every eps and rho of Fig. 2",
            curves,
            "white",
            "proposed",
            rhos,
            tol,
            "the proposed curve touches or crosses the white one somewhere",
        ),
        _below_claim(
            "classdp-fig2-proposed-below-no-noise",
            "fig2",
            "Synthetic data: the proposed mechanism improves on the no-noise baseline at every eps and rho",
            curves,
            "no_noise",
            "proposed",
            rhos,
            tol,
            "the proposed curve is above the no-noise one somewhere",
            upper_rhos=False,
        ),
    ]
    gains = [float((curve(curves, "white", r) - curve(curves, "proposed", r)).mean()) for r in rhos]
    if len(rhos) < 2 or max(gains) - min(gains) <= 10 * tol:
        out.append(
            boolean_claim(
                "classdp-fig2-gain-shrinks-with-rho",
                PAPER,
                "fig2",
                "Synthetic data: the improvement over white noise decreases slightly with larger rho",
                False,
                reproduced_value="mean gain per rho: " + ", ".join(f"{g:.3g}" for g in gains),
                comparable=False,
                note="precondition failed: needs >= 2 rho with gains that differ by more than the evaluator's accuracy",
            )
        )
    else:
        dec = bool(np.all(np.diff(gains) <= 10 * tol))
        out.append(
            boolean_claim(
                "classdp-fig2-gain-shrinks-with-rho",
                PAPER,
                "fig2",
                "Synthetic data: the improvement over white noise decreases slightly with larger rho",
                dec,
                reproduced_value="mean gain per rho: " + ", ".join(f"{g:.3f}" for g in gains),
                note=""
                if dec
                else "depends on the Wishart draw of the covariances, which differs "
                "from the paper's (Sec. VI-A prints no covariances)",
            )
        )
    return out


def sweep_note(sweep: pd.DataFrame | None, mechanism: str, rho: float, eps: float) -> str:
    """ "over similarity a..b this delta is x..y" from the similarity sweep table ("" if it has no such points)."""
    if sweep is None or sweep.empty:
        return ""
    d = sweep[(sweep["mechanism"] == mechanism) & np.isclose(sweep["epsilon"], eps)]
    d = d[d["rho"].isna()] if mechanism == "no_noise" else d[np.isclose(d["rho"].astype(float), rho)]
    if d.empty:
        return ""
    d = d.sort_values("similarity")
    pts = ", ".join(f"{fmt(float(a), 4)}: {float(b):.3f}" for a, b in zip(d["similarity"], d["delta"]))
    return f"delta by within-cluster similarity {pts} (forecast/similarity_sweep.csv)"


def mse_note(defs: pd.DataFrame | None, house: str, prediction: str, paper: float) -> str:
    """The reading of the undefined MSE (forecast/mse_definitions.csv) closest to ``paper`` (in log ratio)."""
    if defs is None or defs.empty:
        return ""
    d = defs[(defs["house"] == house) & (defs["prediction"] == prediction)]
    d = d[np.isfinite(d["value"].astype(float)) & (d["value"].astype(float) > 0)]
    if d.empty:
        return ""
    r = d.iloc[int(np.argmin(np.abs(np.log(d["value"].astype(float) / paper))))]
    return (
        f"of every reading of the MSE the closest to the paper's is {r['metric']} = {float(r['value']):.3g} "
        f"({SWEEPS['mse']})"
    )


def forecast_claims(
    curves: pd.DataFrame,
    mse: pd.DataFrame,
    *,
    rhos,
    info: ForecastDataInfo,
    tol: float,
    fig3_rho: float,
    fig3_epsilon: float,
    sweep: pd.DataFrame | None = None,
    mse_defs: pd.DataFrame | None = None,
) -> list[Claim]:
    """Fig. 4 and Fig. 3 (Sec. VI-B) rows; household-dependent numbers need the paper-matched stand-in.

    ``sweep`` (similarity sweep) and ``mse_defs`` (MSE readings) only add explanations to the notes."""
    matched, why_not = info.paper_matched()
    data = info.describe()
    out: list[Claim] = []
    out.append(
        _below_claim(
            "classdp-fig4-proposed-below-white",
            "fig4",
            "Forecasts: proposed delta < white-noise delta at every eps and rho of Fig. 4",
            curves,
            "white",
            "proposed",
            rhos,
            tol,
            f"the proposed curve touches or crosses the white one somewhere ({data})",
        )
    )
    # the paper's remark: the gain over white noise is largest at small rho
    ok, reason = _informative(curves, "white", rhos, tol)
    gains = [float((curve(curves, "white", r) - curve(curves, "proposed", r)).mean()) for r in sorted(rhos)]
    desc = "Forecasts: the proposed mechanism's gain over white noise is largest at the smallest rho (Sec. VI-B-2)"
    if not ok or len(rhos) < 2:
        out.append(
            boolean_claim(
                "classdp-fig4-gain-largest-at-small-rho",
                PAPER,
                "fig4",
                desc,
                False,
                reproduced_value="-",
                comparable=False,
                note=f"precondition failed: {reason or 'needs >= 2 rho'}",
            )
        )
    else:
        holds = gains[0] >= max(gains) - 10 * tol
        out.append(
            boolean_claim(
                "classdp-fig4-gain-largest-at-small-rho",
                PAPER,
                "fig4",
                desc,
                holds,
                reproduced_value="mean gain per rho (ascending): " + ", ".join(f"{g:.3g}" for g in gains),
                note=""
                if holds
                else f"the largest gain is at rho = {sorted(rhos)[int(np.argmax(gains))]:g} "
                f"({data}); {SWEEPS['forecastability']}",
            )
        )
    nn = curve(curves, "no_noise")
    nn_min = float(nn.min())
    desc = "Forecasts without noise: delta = 1 at every eps (min over the eps grid)"
    if matched:
        out.append(
            numeric_claim(
                "classdp-fig4-no-noise-delta-1",
                PAPER,
                "fig4",
                desc,
                NO_NOISE_DELTA,
                nn_min,
                abs_tol=TN,
                note=f"held-out prediction on the {data}; "
                + "; ".join(
                    x
                    for x in (
                        sweep_note(sweep, "no_noise", np.nan, 1.0) or SWEEPS["similarity"],
                        SWEEPS["forecastability"],
                    )
                    if x
                )
                if nn.min() < NO_NOISE_DELTA - TOL["no_noise"]
                else "",
            )
        )
    else:
        out.append(
            numeric_claim(
                "classdp-fig4-no-noise-delta-1",
                PAPER,
                "fig4",
                desc,
                NO_NOISE_DELTA,
                nn_min,
                abs_tol=TN,
                comparable=False,
                note=f"precondition failed: {why_not}",
            )
        )
    # trade-off: at eps = 1 the proposed delta decreases as rho grows (beyond the evaluator's accuracy)
    desc = "Forecasts: at eps = 1 the proposed delta decreases as rho grows (privacy-accuracy trade-off)"
    vals = [delta_at(curves, "proposed", r, 1.0) for r in sorted(rhos)]
    if any(v is None for v in vals) or len(vals) < 2 or max(vals) - min(vals) <= 100 * tol:
        out.append(
            boolean_claim(
                "classdp-fig4-tradeoff",
                PAPER,
                "fig4",
                desc,
                False,
                reproduced_value=("-" if any(v is None for v in vals) else ", ".join(f"{v:.6g}" for v in vals)),
                comparable=False,
                note="precondition failed: needs eps = 1 on the grid, >= 2 rho, and deltas that differ by more than "
                f"100 x the evaluator tolerance {tol:g} (otherwise any flat curve would pass)",
            )
        )
    else:
        trade = all(a >= b - 10 * tol for a, b in zip(vals, vals[1:]))
        out.append(
            boolean_claim(
                "classdp-fig4-tradeoff",
                PAPER,
                "fig4",
                desc,
                trade,
                reproduced_value=", ".join(f"rho {r:g}: {v:.4f}" for r, v in zip(sorted(rhos), vals)),
                note="" if trade else "the proposed delta at eps = 1 increases somewhere along rho",
            )
        )
    # printed deltas
    for p in FIG4_POINTS:
        got = delta_at(curves, p.mechanism, p.rho, p.epsilon)
        desc = f"Forecasts, Fig. 4: {p.mechanism} delta at rho = {p.rho:g}, eps = {p.epsilon:g} ({p.where})"
        if got is None:
            out.append(
                numeric_claim(
                    p.claim_id,
                    PAPER,
                    "fig4",
                    desc,
                    p.value,
                    float("nan"),
                    abs_tol=TD,
                    comparable=False,
                    note=f"precondition failed: rho = {p.rho:g}, eps = {p.epsilon:g} "
                    "is not on the configured grid (classdp.forecast.rhos / epsilon_grid)",
                )
            )
        elif not matched:
            out.append(
                numeric_claim(
                    p.claim_id,
                    PAPER,
                    "fig4",
                    desc,
                    p.value,
                    got,
                    abs_tol=TD,
                    comparable=False,
                    note=f"precondition failed: {why_not}",
                )
            )
        elif p is CALIBRATION_TARGET:
            out.append(
                calibration_target_claim(
                    p.claim_id,
                    PAPER,
                    "fig4",
                    desc,
                    p.value,
                    got,
                    note=f"the stand-in's within-cluster similarity ({info.similarity:g}) was calibrated on this number "
                    f"(python -m dpgrid.experiments.classdp.calibration); this run is off by {got - p.value:+.3g}; "
                    + SWEEPS["similarity"],
                )
            )
        else:
            extra = [x for x in (sweep_note(sweep, p.mechanism, p.rho, p.epsilon), SWEEPS["forecastability"]) if x]
            if p.rho == 0.45:
                extra.append(SWEEPS["inconsistent"])
            out.append(
                numeric_claim(
                    p.claim_id,
                    PAPER,
                    "fig4",
                    desc,
                    p.value,
                    got,
                    abs_tol=TD,
                    note=f"held-out prediction on the {data}; " + "; ".join(extra),
                )
            )
    # Fig. 3 release
    r3 = mse.iloc[0]
    d3 = float(r3["delta"])
    desc = f"Fig. 3 release (rho = {r3['rho']:g}): delta at eps = {r3['epsilon']:g} (sup over all edges)"
    cl = f"; delta of House 1's cluster alone {r3['delta_cluster']:.4g}" if "delta_cluster" in mse.columns else ""
    if not (np.isclose(fig3_rho, FIG3["rho"]) and np.isclose(fig3_epsilon, FIG3["epsilon"])):
        out.append(
            numeric_claim(
                "classdp-fig3-delta",
                PAPER,
                "fig3",
                desc,
                FIG3["delta"],
                d3,
                abs_tol=T3,
                comparable=False,
                note=f"precondition failed: Fig. 3 is configured at rho = {fig3_rho:g}, "
                f"eps = {fig3_epsilon:g}, the paper's is rho = 0.45, eps = 0.8",
            )
        )
    elif not matched:
        out.append(
            numeric_claim(
                "classdp-fig3-delta",
                PAPER,
                "fig3",
                desc,
                FIG3["delta"],
                d3,
                abs_tol=T3,
                comparable=False,
                note=f"precondition failed: {why_not}{cl}",
            )
        )
    else:
        out.append(
            numeric_claim(
                "classdp-fig3-delta",
                PAPER,
                "fig3",
                desc,
                FIG3["delta"],
                d3,
                abs_tol=T3,
                note=f"held-out prediction on the {data}{cl}; {SWEEPS['inconsistent']}; "
                + "; ".join(
                    x
                    for x in (sweep_note(sweep, "proposed", FIG3["rho"], FIG3["epsilon"]), SWEEPS["forecastability"])
                    if x
                ),
            )
        )

    def mse_claims(prefix, printed, describe, column, prediction, extra=lambda row: ()):
        """One row per printed Fig. 3 house value: ours from ``mse[column]``, the note naming the closest
        reading of the paper's undefined MSE (``prediction`` in forecast/mse_definitions.csv)."""
        for k, paper in enumerate(printed):
            cid, desc = f"{prefix}{k + 1}", describe(k + 1)
            if k >= len(mse):
                out.append(
                    numeric_claim(
                        cid,
                        PAPER,
                        "table_mse",
                        desc,
                        paper,
                        np.nan,
                        rel_tol=TM,
                        comparable=False,
                        note="precondition failed: fewer than 3 Fig. 3 households configured",
                    )
                )
                continue
            row = mse.iloc[k]
            note = "; ".join(
                x
                for x in (
                    *extra(row),
                    mse_note(mse_defs, f"House {k + 1}", prediction, paper) or SWEEPS["mse"],
                    SWEEPS["forecastability"],
                )
                if x
            )
            out.append(
                numeric_claim(
                    cid,
                    PAPER,
                    "table_mse",
                    desc,
                    paper,
                    float(row[column]),
                    rel_tol=TM,
                    comparable=matched,
                    note=(f"held-out prediction on the {data}; " + note)
                    if matched
                    else f"precondition failed: {why_not}; {note}",
                )
            )

    mse_claims(
        "classdp-fig3-nmse-house",
        FIG3_NMSE,
        lambda h: (
            f"Fig. 3: normalised MSE of House {h}'s released forecast (ours: sum (p~ - p)^2 / sum p^2 over the "
            "12 steps, kW, one draw; tolerance rel 0.5 because one draw of 12-dim noise varies by ~40 %)"
        ),
        "nmse_proposed",
        "proposed_one_draw",
        extra=lambda row: (f"expected value over draws {row['nmse_proposed_expected']:.4g}",),
    )
    mse_claims(
        "classdp-fig3-mse-forecast-house",
        PLAIN_MSE,
        lambda h: (
            f"Earlier version, Sec. VI-B: MSE of House {h}'s ARMA forecast (no noise; ours: mean (p^ - p)^2 "
            "in kW^2; the paper states no unit)"
        ),
        "mse_forecast_kw2",
        "forecast",
    )
    return out


def claims_job(job) -> None:
    """results/classdp/claims.csv: synthetic (Fig. 2) and forecast (Figs. 3-4) rows with their preconditions."""
    cfg = job.params.cfg
    spec = job.params.data
    syn = read_table(job.input.synthetic_curves)
    fc = read_table(job.input.forecast_curves)
    mse = read_table(job.input.table_mse, dtype={"meter_id": str})
    summary = read_json(job.input.forecast_summary)
    sweep = read_table(job.input.similarity_sweep)
    defs = read_table(job.input.mse_definitions, dtype={"meter_id": str})
    step = int(spec["step_minutes"])
    info = ForecastDataInfo(
        source=spec["source"],
        households=int(summary["used"]),
        step_minutes=step,
        n_clusters=int(cfg["forecast"]["n_clusters"]),
        similarity=spec.get("within_cluster_similarity"),
    )
    tol = float(cfg["delta_tolerance"])
    claims = synthetic_claims(syn, cfg["synthetic"]["rhos"], tol)
    claims += forecast_claims(
        fc,
        mse,
        rhos=cfg["forecast"]["rhos"],
        info=info,
        tol=tol,
        fig3_rho=float(cfg["forecast"]["fig3_rho"]),
        fig3_epsilon=float(cfg["forecast"]["fig3_epsilon"]),
        sweep=sweep,
        mse_defs=defs,
    )
    write_claims(claims, job.output.claims)
