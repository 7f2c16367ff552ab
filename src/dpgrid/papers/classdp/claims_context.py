"""The run's context of the classdp claims (results/classdp/claims.csv; Ramakrishna et al., *Differential Privacy
for Class-based Data*, Figs. 2-4): the curves by figure, the Fig. 3 table, the households' description and whether
they are the paper-matched stand-in, each "A below B" claim's precondition (the curve is informative), and the
notes that point a differing row to the sweep that explains it. Built once by the claims job
(:func:`claims_context`); the measures of :data:`dpgrid.papers.classdp.claims.CLAIMS` read it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpgrid.core.claims import fmt
from dpgrid.core.io import read_json, read_table
from dpgrid.mechanisms.gaussian_class import load_class_model
from dpgrid.papers.classdp.paper import (
    PAPER_DATA,
    STANDIN_SOURCE,
    TOL,
    ClassdpConfigError,
)

#: tolerances of the comparisons (paper.TOL): deltas from the text, Fig. 3's delta, the no-noise delta, the MSEs
TD, T3, TN, TM = TOL["delta_text"], TOL["fig3_delta"], TOL["no_noise"], TOL["mse_rel"]
#: a curve (or a set of deltas) is informative when it leaves 1 (spreads) by more than this many evaluator tolerances
INFORMATIVE = 100.0
#: an order ("A below B", "decreases") is resolved when its margins exceed this many evaluator tolerances
RESOLVED = 10.0

#: Where each remaining difference is explained (workflow/papers/classdp/classdp.md, "Fidelity").
SWEEPS = {
    "similarity": "delta vs the stand-in's within-cluster similarity: forecast/similarity_sweep.csv, "
    "fig_similarity_sweep",
    "forecastability": "the stand-in's households are far less forecastable than the paper's (ARMA forecast "
    "normalised MSE ~0.1-0.3 vs the paper's ~1e-3): large forecast covariances make every "
    "delta flatter in eps (workflow/papers/classdp/classdp.md)",
    "mse": "every reading of the undefined (normalised) MSE: forecast/mse_definitions.csv",
    "inconsistent": "the paper's Fig. 3 delta(0.8) = 0.5637 at rho = 0.45 cannot be the same sup-over-edges "
    "curve as Fig. 4's delta(1) = 0.84 at rho = 0.45 (delta is non-increasing in eps)",
}


#: The explanations of :data:`SWEEPS` that are about the stand-in's households, and what is said instead on other
#: households (real data, the generic synthetic population): no sweep of theirs was run.
STANDIN_ONLY = {
    "similarity": "",
    "forecastability": "how forecastable the households are sets how flat every delta is in eps (the paper's: ARMA "
    "forecast normalised MSE ~1e-3; these households': forecast/households.csv, workflow/papers/classdp/classdp.md)",
}


def explanation(source: str, key: str) -> str:
    """The explanation ``SWEEPS[key]`` of a difference, for households of data source ``source``: the notes about
    the stand-in's households are said of the stand-in only (:data:`STANDIN_ONLY`)."""
    if key in STANDIN_ONLY and source != STANDIN_SOURCE:
        return STANDIN_ONLY[key]
    return SWEEPS[key]


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


def margins(df, upper: str, lower: str, rhos) -> np.ndarray:
    out = []
    for r in rhos:
        u, lo = curve(df, upper, r), curve(df, lower, r)
        if not np.array_equal(u.index.to_numpy(), lo.index.to_numpy()):
            raise ClassdpConfigError("curves on different eps grids cannot be compared; rebuild the curves tables")
        out.append((u - lo).to_numpy())
    return np.concatenate(out)


def informative(df, mechanism: str, rhos, tol: float) -> tuple[bool, str]:
    """Precondition of an 'A below B' claim: the curve leaves 1 by more than the evaluator's accuracy."""
    d = np.concatenate([curve(df, mechanism, r).to_numpy() for r in (rhos if rhos is not None else [None])])
    gap = float(np.max(1.0 - d))
    need = INFORMATIVE * tol
    if gap <= need:
        return False, (
            f"every {mechanism} delta is within {gap:.2g} of 1 (<= {INFORMATIVE:g} x the evaluator tolerance "
            f"{tol:g}): the curves carry no information to compare"
        )
    return True, ""


def mean_gains(df, rhos) -> list[float]:
    """Mean gain of the proposed mechanism over white noise (white - proposed delta over the eps grid) per rho."""
    return [float((curve(df, "white", r) - curve(df, "proposed", r)).mean()) for r in rhos]


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


# ------------------------------------------------------------------------------------------
# the run's context, built once by the claims job

#: the "A below B" comparisons: (figure, upper curve) whose informativeness is each one's precondition
_BELOW = (("fig2", "white"), ("fig2", "no_noise"), ("fig4", "white"))


@dataclass(kw_only=True)
class ClaimsContext:
    """What the measures of :data:`dpgrid.papers.classdp.claims.CLAIMS` read (built by :func:`context`)."""

    #: delta(eps) curves by figure: ``fig2`` (synthetic classes), ``fig4`` (forecast households)
    curves: dict[str, pd.DataFrame]
    #: the accuracy budgets rho of each figure's curves
    rhos: dict[str, list[float]]
    #: the Fig. 3 table (per-household MSE of the released forecasts)
    mse: pd.DataFrame
    #: the similarity sweep and the MSE readings: explanations in the notes only (None: not loaded)
    sweep: pd.DataFrame | None
    mse_defs: pd.DataFrame | None
    #: Fig. 1's synthetic class model (:class:`~dpgrid.mechanisms.gaussian_class.ClassGaussianModel`)
    fig1_model: object | None
    #: the delta evaluator's tolerance, and the Fig. 3 release's rho and eps
    tol: float
    fig3_rho: float
    fig3_epsilon: float
    #: the forecast households and whether they are the paper-matched stand-in (and why not)
    info: ForecastDataInfo
    matched: bool
    why_not: str
    data: str
    #: (figure, upper curve) -> (the curve is informative, why not): each "A below B" claim's precondition
    informative: dict[tuple[str, str], tuple[bool, str]]
    #: the descriptions' text arguments (the Fig. 3 release's rho and eps)
    text_args: dict[str, float]
    #: the paper's rows of results/privacy_audits.csv
    privacy_audits: pd.DataFrame | None = None


def context(
    synthetic: pd.DataFrame,
    forecast: pd.DataFrame,
    mse: pd.DataFrame,
    *,
    synthetic_rhos,
    forecast_rhos,
    info: ForecastDataInfo,
    tol: float,
    fig3_rho: float,
    fig3_epsilon: float,
    sweep: pd.DataFrame | None = None,
    mse_defs: pd.DataFrame | None = None,
    fig1_model=None,
    privacy_audits: pd.DataFrame | None = None,
) -> ClaimsContext:
    """What the measures of :data:`CLAIMS` read: the curves of Fig. 2 (``synthetic``) and Fig. 4 (``forecast``) by
    figure, the Fig. 3 table, the households' description and whether they are the paper-matched stand-in, the
    precondition of each "A below B" claim, and the description's text arguments (the Fig. 3 release's rho, eps).

    ``sweep`` (similarity sweep) and ``mse_defs`` (MSE readings) only add explanations to the notes; ``fig1_model``
    is Fig. 1's synthetic class model (:class:`~dpgrid.mechanisms.gaussian_class.ClassGaussianModel`)."""
    matched, why_not = info.paper_matched()
    curves = {"fig2": synthetic, "fig4": forecast}
    rhos = {"fig2": list(synthetic_rhos), "fig4": list(forecast_rhos)}
    release = mse.iloc[0]
    return ClaimsContext(
        curves=curves,
        rhos=rhos,
        mse=mse,
        sweep=sweep,
        mse_defs=mse_defs,
        fig1_model=fig1_model,
        tol=float(tol),
        fig3_rho=float(fig3_rho),
        fig3_epsilon=float(fig3_epsilon),
        info=info,
        matched=matched,
        why_not=why_not,
        data=info.describe(),
        informative={
            (fig, upper): informative(curves[fig], upper, None if upper == "no_noise" else rhos[fig], tol)
            for fig, upper in _BELOW
        },
        text_args={"release_rho": float(release["rho"]), "release_epsilon": float(release["epsilon"])},
        privacy_audits=privacy_audits,
    )


def claims_context(job) -> ClaimsContext:
    cfg = job.params.cfg
    spec = job.params.data
    summary = read_json(job.input.forecast_summary)
    info = ForecastDataInfo(
        source=spec["source"],
        households=int(summary["used"]),
        step_minutes=int(spec["step_minutes"]),
        n_clusters=int(cfg["forecast"]["n_clusters"]),
        similarity=spec.get("within_cluster_similarity"),
    )
    return context(
        read_table(job.input.synthetic_curves),
        read_table(job.input.forecast_curves),
        read_table(job.input.table_mse, dtype={"meter_id": str}),
        synthetic_rhos=cfg["synthetic"]["rhos"],
        forecast_rhos=cfg["forecast"]["rhos"],
        info=info,
        tol=float(cfg["delta_tolerance"]),
        fig3_rho=float(cfg["forecast"]["fig3_rho"]),
        fig3_epsilon=float(cfg["forecast"]["fig3_epsilon"]),
        sweep=read_table(job.input.similarity_sweep),
        mse_defs=read_table(job.input.mse_definitions, dtype={"meter_id": str}),
        fig1_model=load_class_model(job.input.model),
        privacy_audits=read_table(job.input.privacy_audits),
    )


# ------------------------------------------------------------------------------------------
