"""Claims table rows of Figs. 12-13 (results/dpkmeans/claims_opf.csv), as a spec table per feeder.

Distribution match (per feeder and quantity, docs/grid.md): reproduced when W1(true, synthetic) <= match_factor
x the mean of W1(true, reference_r) over the independent reference draws of real houses, i.e. the synthetic
profiles move the voltage distribution at most ``match_factor`` times as far from the true sample's as drawing
another sample of real houses does.  The tolerance is computed from the run, so the measures state it
(``Measured.tolerance``).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from dpgrid.core.claims import NOT_COMPARABLE, Claim, ClaimSpec, Measured, evaluate_claims, fmt, write_claims
from dpgrid.core.io import read_table
from dpgrid.grid.voltage_stats import QUANTITIES
from dpgrid.papers.dpkmeans.opf.paper import FEEDER_TITLE, FIGURE_OF_FEEDER, VOLT_DTYPES
from dpgrid.papers.dpkmeans.paper import PAPER


def _match(feeder: str, q: str):
    def measure(ctx) -> Measured:
        fd = ctx.dist[(ctx.dist.feeder == feeder) & (ctx.dist.quantity == q)]
        s = fd[fd.comparison == "true_vs_synthetic"].iloc[0]
        refs = fd[fd.comparison.str.startswith("true_vs_reference")]
        tol = ctx.match_factor * float(refs.w1.mean())
        if int(s.hours_used) == 0 or refs.empty or not tol > 0:
            return Measured(
                False,
                shown="-",
                status=NOT_COMPARABLE,
                note="precondition failed: no hour converged for every profile set, no reference draw, or "
                "reference draws that do not move the distribution (W1 = 0: any synthetic profiles would pass), so "
                f"there is nothing to compare ({int(s.hours_used)} hours used, {len(refs)} reference draw(s), mean "
                f"W1(true, reference) {fmt(tol / ctx.match_factor, 3)}; see the opf_converged row)",
            )
        holds = bool(np.isfinite(s.w1) and s.w1 <= tol)
        unit = "p.u." if q == "vm_pu" else "deg"
        note = (
            f"W1(true, reference draws) = {', '.join(fmt(v, 3) for v in refs.w1)} {unit}; "
            f"KS true-vs-synthetic {fmt(s.ks, 3)} [{fmt(s.ks_low, 3)}, {fmt(s.ks_high, 3)}], "
            f"true-vs-reference {', '.join(fmt(v, 3) for v in refs.ks)}; {int(s.hours_used)} hours used"
        )
        return Measured(
            holds,
            shown=f"W1 {fmt(s.w1, 3)} {unit} [{fmt(s.w1_low, 3)}, {fmt(s.w1_high, 3)}]",
            note=note if holds else "synthetic profiles shift the distribution more than the tolerance allows; " + note,
            tolerance=(
                f"W1(true,synthetic) <= {ctx.match_factor:g} x mean W1(true,reference) = {fmt(tol, 3)} {unit} "
                f"({len(refs)} reference draw(s))"
            ),
        )

    return measure


def _share_outside_band(feeder: str):
    def measure(ctx) -> Measured:
        fb = ctx.band[ctx.band.feeder == feeder]
        t, s = fb[fb.profiles == "true"].iloc[0], fb[fb.profiles == "synthetic"].iloc[0]
        diff = float(s.share_outside - t.share_outside)
        shares = fb.share_outside.to_numpy(float)
        shown = f"{fmt(s.share_outside, 3)} [{fmt(s.share_outside_low, 3)}, {fmt(s.share_outside_high, 3)}]"
        if not np.all(np.isfinite(shares)) or not np.any(shares > 0):
            # every set at 0: the voltages cannot leave the band on this feeder (e.g. ieee123 with its
            # regulators solved per snapshot), so 'synthetic matches true' would hold whatever the profiles
            why = (
                "no hour converged for every profile set"
                if not np.all(np.isfinite(shares))
                else f"no bus-hour of any profile set ({', '.join(fb.profiles)}) lies outside the band "
                f"(voltages {fmt(float(fb.vm_min.min()), 4)}-{fmt(float(fb.vm_max.max()), 4)} p.u.), so a share of "
                "0 for the synthetic profiles would follow whatever they are"
            )
            return Measured(
                False,
                shown=shown,
                status=NOT_COMPARABLE,
                note=f"precondition failed: {why}",
                reference=f"not printed; true profiles give {fmt(t.share_outside, 3)}",
                tolerance=f"abs {ctx.band_abs_tol:g}",
            )
        holds = bool(np.isfinite(diff) and abs(diff) <= ctx.band_abs_tol)
        # nothing printed: the row can be neither reproduced nor contradicted; the comparison with the true
        # profiles' share is its note
        return Measured(
            holds,
            shown=shown,
            status=NOT_COMPARABLE,
            note=f"the paper prints no share; synthetic minus true = {fmt(diff, 3)} "
            f"({'within' if holds else 'beyond'} abs {ctx.band_abs_tol:g})",
            reference=f"not printed; true profiles give {fmt(t.share_outside, 3)}",
            tolerance=f"abs {ctx.band_abs_tol:g}",
        )

    return measure


def _converged(feeder: str):
    def measure(ctx) -> Measured:
        fb = ctx.band[ctx.band.feeder == feeder]
        n_all, n_ok = int(fb.snapshots.sum()), int(fb.converged.sum())
        if n_all == 0:
            return Measured(False, shown="0 snapshots", status=NOT_COMPARABLE, note="precondition failed: no snapshot")
        return Measured(
            n_ok == n_all,
            shown=f"{n_ok} of {n_all} snapshots converged",
            note=""
            if n_ok == n_all
            else (
                "not converged (cause, status.csv): "
                + "; ".join(str(f) for f in fb.failed.fillna("") if str(f))
                + "; left out of the histograms and distances (hours used are those converged for every set)"
            ),
        )

    return measure


#: The claims of each feeder's figure, as data (rows of the feeders the run solved, in this order).
CLAIMS_OF_FEEDER: dict[str, tuple[ClaimSpec, ...]] = {
    feeder: (
        *(
            ClaimSpec(
                f"{fig}_{feeder}_{q}_match",
                fig,
                f"{FEEDER_TITLE[feeder]}: {label} distribution under synthetic profiles matches the true one",
                _match(feeder, q),
                paper_value="good match (visual)",
                quote='Sec. V-C: "The voltage magnitude and phase obtained for the synthetic load profiles provide a '
                'good match for those obtained for the true load profiles."',
            )
            for q, label in QUANTITIES.items()
        ),
        ClaimSpec(
            f"{fig}_{feeder}_share_outside_band",
            "table_voltage_band",
            f"{FEEDER_TITLE[feeder]}: share of bus-hours outside {{band[{feeder}]}} p.u., synthetic vs true profiles",
            _share_outside_band(feeder),
            # not printed: compared with the true profiles' share (Measured.reference) in the note; with no printed
            # number or sentence to compare with, the row is 'not comparable' whatever the comparison gives
            paper_value=None,
        ),
        ClaimSpec(
            f"{fig}_{feeder}_opf_converged",
            fig,
            f"{FEEDER_TITLE[feeder]}: AC OPF converges for every hourly snapshot (true, synthetic, reference draws)",
            _converged(feeder),
            paper_value="every hour of both runs (implicit)",
            quote='Sec. V-C, steps 4-6: "Run an optimum power flow for this case ... Repeat steps 3 and 4 for all time '
            'intervals" (with true and with synthetic profiles)',
        ),
    )
    for feeder, fig in FIGURE_OF_FEEDER.items()
}


def opf_claims(dist: pd.DataFrame, band: pd.DataFrame, *, match_factor: float, band_abs_tol: float) -> list[Claim]:
    """Claims of Figs. 12-13 (the spec table of every feeder with distances) with the tolerance rule stated in
    docs/grid.md and the module docstring."""
    ctx = SimpleNamespace(dist=dist, band=band, match_factor=match_factor, band_abs_tol=band_abs_tol)
    feeders = [f for f in FIGURE_OF_FEEDER if (dist.feeder == f).any()]
    bands = {}
    for f in feeders:
        t = band[(band.feeder == f) & (band.profiles == "true")]
        bands[f] = f"{t.band_low_pu.iloc[0]:g}-{t.band_high_pu.iloc[0]:g}" if len(t) else "?"
    specs = [s for f in feeders for s in CLAIMS_OF_FEEDER[f]]
    return evaluate_claims(PAPER, specs, ctx, text_args={"band": bands})


def claims_job(job) -> None:
    """claims_opf.csv: voltage-distribution match per feeder and quantity, band shares, convergence."""
    st = job.params.stats
    claims = opf_claims(
        read_table(job.input.distances, dtype=VOLT_DTYPES),
        read_table(job.input.band, dtype=VOLT_DTYPES),
        match_factor=st["match_factor"],
        band_abs_tol=st["band_share_abs_tol"],
    )
    write_claims(claims, job.output.claims)
