"""The measures of the spdp paper's claims (Parker, Hale, Barooah, *Spectral Differential Privacy*, Tables I-III,
Sec. IV): each takes the context :func:`dpgrid.papers.spdp.claims_context.claims_context` builds once and returns a
:class:`~dpgrid.core.claims.Measured`; :func:`dpgrid.papers.spdp.claims.claim_specs` pairs them with the printed
values. A number computed on the home's data is compared only on the paper-matched stand-in.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpgrid.core.claims import (
    CALIBRATION,
    COMPARED,
    NOT_COMPARABLE,
    Measured,
    fmt,
)
from dpgrid.mechanisms.trajectory_gaussian import trajectory_sigma
from dpgrid.papers.spdp.paper import PAPER_VALUES

#: A release "is useful" (non-vacuity precondition of the beats-claims) when its correlation with the
#: sensitive series is at least this (the paper calls SpDP's 0.34 "good utility").
USEFUL_CORR = 0.1
#: TrDP's released mean is the sensitive mean plus the mean of n i.i.d. noise values: this many standard errors
#: (noise_std / sqrt(n)) of it are part of the tolerance of a TrDP mean (else a 180-kW noise mean could 'match').
MEAN_STANDARD_ERRORS = 3.0
#: A release's mean, std, correlation and SNR are compared with the printed ones only when its added noise is the
#: paper's (Table III noise std within this relative tolerance, that of the noise-std rows): a release with other
#: noise is another release (a noise-dominated one matches the printed -0.015 correlation and 0.0 dB SNR whatever
#: its noise above ~50 kW), and the mean tolerance scales with the release's own noise.
SAME_NOISE_REL = 0.1
#: The absolute tolerance of a Table III SNR row (dB): the printed SNRs have two decimals but are a noise realisation.
SNR_ABS_TOL = 0.5
#: Sec. IV-B on Table II: SpDP and TrDP-4h "preserve the mean of the sensitive time series, and their standard
#: deviations are within 15% of the sensitive time series": |std / std_sensitive - 1| <= STD_WITHIN (the paper's own
#: 1.91 / 1.74 = 1.10 and 1.97 / 1.74 = 1.13) and |mean / mean_sensitive - 1| <= MEAN_PRESERVED (the relative
#: tolerance of the printed Table II rows; the paper's own 1.77 / 1.73 = 1.02 and 1.75 / 1.73 = 1.01).
STD_WITHIN = 0.15
MEAN_PRESERVED = 0.1
#: "TrDP designed for one week has a standard deviation over 100 times larger and a mean almost two times larger than
#: the sensitive time series" (the paper's own 180 / 1.74 = 103 and 3.38 / 1.73 = 1.95): std ratio > STD_FACTOR_1WEEK
#: and mean ratio in MEAN_FACTOR_1WEEK ("almost two": not above two, nearer two than one).
STD_FACTOR_1WEEK = 100.0
MEAN_FACTOR_1WEEK = (1.5, 2.0)
#: readings of eq. (12) for B_SpDP named in the b_spdp row's note (fidelity_b_readings.csv, two-sided PSD)
B_SPDP_READINGS = ("sliding", "nested", "consecutive", "first_span")

SENSITIVE_NOTE = (
    "stated data fact: the stand-in home's ratings are solved to match it over the whole series (Table II is "
    "computed after the burn-in)"
)
SIGMA_NOTE = (
    "the printed digits are eq. (2) at delta = 1e-3 (fidelity_trdp_printed.csv: no formula at Table I's "
    "delta = 0.01 prints them)"
)
SIGMA_PAPER_DELTA_NOTE = "eq. (2) reproduces the printed digit only at this delta, not at Table I's delta"
EXPECTED_NOTE = "arithmetic from Table II's sensitive mean/std and the printed calibration"


def _reading(br: pd.DataFrame, par: str, rd: str) -> float:
    r = br[(br["parameter"] == par) & (br["reading"] == rd)]
    return float(r["value"].iloc[0]) if len(r) else math.nan


def _mean_tol(series: str, noise_std: float, n: int) -> float | None:
    """The absolute tolerance of a released mean: MEAN_STANDARD_ERRORS standard errors of the mean of ``n``
    noise values for TrDP (whose noise is i.i.d.), none for SpDP."""
    return MEAN_STANDARD_ERRORS * noise_std / math.sqrt(n) if series.startswith("trdp") else None


def _on_data(ctx, value: float, note: str, abs_tol: float | None = None) -> Measured:
    """A number computed on the home's data: compared on the paper-matched stand-in, else not comparable."""
    if ctx.standin:
        return Measured(value, note=note, abs_tol=abs_tol)
    return Measured(value, note=ctx.why, status=NOT_COMPARABLE, abs_tol=abs_tol)


# ---- measures (each reads the context built once by claims_context)


def b_spdp(ctx) -> Measured:
    bs = {rd: _reading(ctx.br, "b_spdp", f"{rd}/two_sided") for rd in B_SPDP_READINGS}
    return _on_data(
        ctx,
        ctx.cal["b_spdp"],
        "readings of eq. (12) on this home: "
        + ", ".join(f"{k} {fmt(v, 3)}" for k, v in bs.items())
        + f" (fidelity_b_readings.csv); none reaches {fmt(PAPER_VALUES['b_spdp'])}: this home's PSD varies more "
        "between seasons",
    )


def b_trdp(key: str):
    def measure(ctx) -> Measured:
        par = f"b_trdp_{key}"
        r = ctx.br[ctx.br["parameter"] == par]
        extra = ""
        if len(r):
            row = r.iloc[0]
            extra = (
                f"; eq. (13)'s max >= std sqrt(2K(1 - profile share)) = {fmt(row['max_lower_bound'], 3)} kW here, and the "
                f"paper's value would need a block-profile share >= {fmt(row['profile_share_needed'], 4)} (this home: "
                f"{fmt(row['profile_share'], 2)}); readings: first pair D(K) {fmt(_reading(ctx.br, par, 'first_pair'), 3)}, "
                f"min {fmt(_reading(ctx.br, par, 'min_all_pairs'), 3)}, median "
                f"{fmt(_reading(ctx.br, par, 'median_all_pairs'), 3)} kW (fidelity_b_readings.csv)"
            )
        return _on_data(ctx, ctx.cal["trdp"][key]["b"], "eq. (13) as written" + extra)

    return measure


def sensitive(col: str):
    """Table II's sensitive mean/std: the stand-in's input (calibration target), else not comparable."""

    def measure(ctx) -> Measured:
        v = float(ctx.t2.loc["sensitive", col])
        if ctx.standin:
            return Measured(v, status=CALIBRATION, note=SENSITIVE_NOTE)
        return Measured(v, status=NOT_COMPARABLE, note=ctx.why)

    return measure


def _other_noise(series: str, col: str, noise_std: float) -> str:
    """The reason a release's ``col`` is not compared (its noise is not the paper's), or "" when it is."""
    printed = PAPER_VALUES["table3"][series][0]
    if col == "noise_std_kw" or abs(noise_std - printed) <= SAME_NOISE_REL * abs(printed):
        return ""
    return (
        f"precondition failed: this release's added noise ({fmt(noise_std, 3)} kW) is not the paper's "
        f"({fmt(printed)} kW, the table3_{series}_noise_std row): its {col} describes another release"
    )


def printed_snr_db(series: str, signal: str) -> float:
    """A Table III SNR from the printed Table II-III numbers: the released series' power (``signal`` "released",
    the ``snr_db_paper`` definition) or the sensitive series' ("sensitive", ``snr_db_sensitive``) over the printed
    added-noise variance, mean^2 + std^2 for the power."""
    t2, noise = PAPER_VALUES["table2"], PAPER_VALUES["table3"][series][0]
    mean, std = t2[series if signal == "released" else "sensitive"]
    return 10.0 * math.log10((mean**2 + std**2) / noise**2)


def snr_other_definition(series: str, row) -> str:
    """The note of a Table III SNR row (compared as ``snr_db_paper``, released signal over noise): what the other
    definition (``snr_db_sensitive``, sensitive signal over noise) gives, and, when that lands near the printed cell,
    why it is still not the paper's: the printed cells follow ``snr_db_paper`` on the printed Table II-III numbers."""
    if "snr_db_sensitive" not in row.index:
        return ""
    other, printed = float(row["snr_db_sensitive"]), PAPER_VALUES["table3"][series][2]
    text = f"the other SNR definition (signal = the sensitive series, snr_db_sensitive) gives {fmt(other, 3)} dB"
    if math.isfinite(other) and abs(other - printed) <= SNR_ABS_TOL:
        text += (
            f", within {SNR_ABS_TOL:g} dB of the printed {fmt(printed)}, but the printed cell follows snr_db_paper: "
            f"the printed mean, std and noise give {fmt(printed_snr_db(series, 'released'), 3)} dB by it and "
            f"{fmt(printed_snr_db(series, 'sensitive'), 3)} dB by snr_db_sensitive, so the match comes from this "
            f"release's noise ({fmt(float(row['noise_std_kw']), 3)} kW, printed {fmt(PAPER_VALUES['table3'][series][0])} "
            "kW), not from a second definition (workflow/papers/spdp/spdp.md, SNR)"
        )
    return text


def _with(note: str, extra: str) -> str:
    return f"{note}; {extra}" if extra else note


def ours(table: str, series: str, col: str):
    """A Table II/III number of the our-B variant (results/spdp/table2.csv or table3.csv)."""

    def measure(ctx) -> Measured:
        noise = float(ctx.t3.loc[series, "noise_std_kw"])
        tol = _mean_tol(series, noise, ctx.n_eval) if col == "mean_kw" else None
        value = float(getattr(ctx, table).loc[series, col])
        extra = snr_other_definition(series, ctx.t3.loc[series]) if col == "snr_db_paper" else ""
        other = _other_noise(series, col, noise) if ctx.standin else ""
        if other:
            return Measured(value, note=_with(f"{other}; {ctx.ours_note}", extra), status=NOT_COMPARABLE, abs_tol=tol)
        return _on_data(ctx, value, _with(ctx.ours_note, extra), tol)

    return measure


def paper_b(series: str, col: str):
    """A Table II/III number of the paper-parameter variant (results/spdp/table3_paper_b.csv)."""

    def measure(ctx) -> Measured:
        r = ctx.paper_b[series]
        tol = _mean_tol(series, float(r["noise_std_kw"]), ctx.n_eval) if col == "mean_kw" else None
        extra = snr_other_definition(series, r) if col == "snr_db_paper" else ""
        other = _other_noise(series, col, float(r["noise_std_kw"])) if ctx.standin else ""
        if other:
            return Measured(
                float(r[col]),
                note=_with(f"{other}; {ctx.paper_b_notes[series]}", extra),
                status=NOT_COMPARABLE,
                abs_tol=tol,
            )
        return _on_data(ctx, float(r[col]), _with(ctx.paper_b_notes[series], extra), tol)

    return measure


def _table2_row(ctx, variant: str, series: str) -> tuple[float, float, float]:
    """(mean, std, added-noise std) in kW of ``series``'s release: our-B Tables II-III or the paper-parameter row."""
    if variant == "ours":
        return (
            float(ctx.t2.loc[series, "mean_kw"]),
            float(ctx.t2.loc[series, "std_kw"]),
            float(ctx.t3.loc[series, "noise_std_kw"]),
        )
    r = ctx.paper_b[series]
    return float(r["mean_kw"]), float(r["std_kw"]), float(r["noise_std_kw"])


def _table2_ratios(ctx, variant: str, series_list, holds_of, shown_label: str, differs: str) -> Measured:
    """A Sec. IV-B sentence on Table II as ratios to the sensitive series: ``holds_of(mean ratio, std ratio)`` for
    each release of ``series_list``; compared only on the stand-in and only for releases with the paper's noise."""
    mean_s, std_s = float(ctx.t2.loc["sensitive", "mean_kw"]), float(ctx.t2.loc["sensitive", "std_kw"])
    parts, ok, other = [], True, []
    for series in series_list:
        mean, std, noise = _table2_row(ctx, variant, series)
        rm, rs = mean / mean_s, std / std_s
        ok = ok and bool(holds_of(rm, rs))
        parts.append(f"{series} mean x {fmt(rm, 3)}, std x {fmt(rs, 3)}")
        why = _other_noise(series, "std_kw", noise) if ctx.standin else ""
        if why:
            other.append(why)
    shown = f"{shown_label}: " + "; ".join(parts)
    note = ctx.ours_note if variant == "ours" else "; ".join(ctx.paper_b_notes[s] for s in series_list)
    if not ctx.standin:
        return Measured(ok, shown=shown, status=NOT_COMPARABLE, note=f"precondition failed: {ctx.why}")
    if other:
        return Measured(ok, shown=shown, status=NOT_COMPARABLE, note="; ".join([*other, note]))
    return Measured(ok, shown=shown, note="" if ok else f"{differs}; {note}")


def table2_keeps_mean_and_std(variant: str):
    """Sec. IV-B: SpDP and TrDP-4h preserve the sensitive mean (within MEAN_PRESERVED) and their stds are within
    STD_WITHIN of the sensitive std. ``variant``: "ours" (our B) or "paper_b" (the paper's B)."""

    def measure(ctx) -> Measured:
        return _table2_ratios(
            ctx,
            variant,
            ("spdp", "trdp_4h"),
            lambda rm, rs: abs(rm - 1.0) <= MEAN_PRESERVED and abs(rs - 1.0) <= STD_WITHIN,
            "ratio to the sensitive series",
            f"a mean is not within {MEAN_PRESERVED:g} or a std not within {STD_WITHIN:g} of the sensitive series'",
        )

    return measure


def table2_trdp_1week_ratios(variant: str):
    """Sec. IV-B: TrDP-1 week's std is over STD_FACTOR_1WEEK times the sensitive std and its mean almost twice the
    sensitive mean (ratio in MEAN_FACTOR_1WEEK)."""
    lo, hi = MEAN_FACTOR_1WEEK

    def measure(ctx) -> Measured:
        return _table2_ratios(
            ctx,
            variant,
            ("trdp_1week",),
            lambda rm, rs: rs > STD_FACTOR_1WEEK and lo <= rm <= hi,
            "ratio to the sensitive series",
            f"the std is not over {STD_FACTOR_1WEEK:g} x or the mean not {lo:g}-{hi:g} x the sensitive series'",
        )

    return measure


def sigma(key: str, formula: str, delta: str, note: str):
    """Table III's noise std for the paper's B (``paper_parameters[key]``): calibration arithmetic, data-free;
    ``delta`` names the context's delta (Table I's ``delta`` or the paper-parameter ``trdp_delta``)."""

    def measure(ctx) -> Measured:
        return Measured(trajectory_sigma(ctx.pp[key], ctx.eps, getattr(ctx, delta), formula), note=note)

    return measure


def expected(metric: str):
    def measure(ctx) -> Measured:
        return Measured(ctx.trdp_4h_expected[metric], note=EXPECTED_NOTE)

    return measure


def beats(spdp_mech: str, reading: str, calibration: str):
    """SpDP beats TrDP at every swept duration above 4 h (correlation and added-noise std), with the
    precondition that SpDP's own release is useful (corr >= USEFUL_CORR), else the claim would be vacuous.
    ``calibration`` names the context's TrDP calibration label (``cal_label`` or ``printed_cal``)."""

    def measure(ctx) -> Measured:
        sweep = ctx.sweep
        sp = sweep[sweep["mechanism"] == spdp_mech].groupby("hours")[["correlation", "noise_std_kw"]].first()
        tr = sweep[(sweep["mechanism"] == "trdp") & (sweep["reading"] == reading)]
        tr = tr[tr["calibration"] == getattr(ctx, calibration)].set_index("hours")
        above = [h for h in tr.index if h > 4]
        if not above or sp.empty:
            return Measured(False, status=NOT_COMPARABLE, note="precondition failed: no swept duration above 4 h")
        sp_corr, sp_noise = float(sp["correlation"].iloc[0]), float(sp["noise_std_kw"].iloc[0])
        lose = [h for h in above if not (sp_corr > tr.loc[h, "correlation"] and sp_noise < tr.loc[h, "noise_std_kw"])]
        at4 = tr.loc[4.0, "correlation"] if 4.0 in tr.index else math.nan
        shown = (
            f"SpDP corr {fmt(sp_corr, 2)}, noise {fmt(sp_noise, 3)} kW; beats TrDP at {len(above) - len(lose)}/"
            f"{len(above)} durations > 4 h"
            + (f" (loses at {', '.join(fmt(h, 3) for h in lose)} h)" if lose else "")
            + f"; TrDP corr at 4 h {fmt(at4, 2)}"
        )
        if not ctx.standin:
            # the sweep runs on the home's data: on other data than the paper-matched stand-in the comparison is
            # gated like every other data-dependent row
            return Measured(False, shown=shown, status=NOT_COMPARABLE, note=f"precondition failed: {ctx.why}")
        if sp_corr < USEFUL_CORR:
            return Measured(
                False,
                shown=shown,
                note=f"SpDP's own release is noise (corr {fmt(sp_corr, 2)} < {USEFUL_CORR}): 'SpDP beats "
                "TrDP' would hold only vacuously; see the B_SpDP row and fidelity_spdp_variants.csv",
            )
        return Measured(
            not lose,
            shown=shown,
            note=""
            if not lose
            else "TrDP has the higher correlation or lower noise at the listed "
            "durations (B(K) of this reading is small); see fidelity_b_readings.csv",
        )

    return measure


def trdp_4h_beats_spdp(ctx) -> Measured:
    c4, csp = float(ctx.t3.loc["trdp_4h", "correlation"]), float(ctx.t3.loc["spdp", "correlation"])
    note = (
        f"our B_TrDP(4 h) = {fmt(ctx.cal['trdp']['4h']['b'], 3)} kW (eq. 13 max) makes the TrDP noise large; "
        "see b_trdp_4h"
    )
    return Measured(
        bool(c4 > csp),
        shown=f"TrDP-4h {fmt(c4, 2)} vs SpDP {fmt(csp, 2)}",
        note=note if ctx.standin else ctx.why,
        status=COMPARED if ctx.standin else NOT_COMPARABLE,
    )


def trdp_4h_beats_spdp_paper_b(ctx) -> Measured:
    c4, csp = float(ctx.paper_b["trdp_4h"]["correlation"]), float(ctx.paper_b["spdp"]["correlation"])
    return Measured(
        c4 > csp,
        shown=f"TrDP-4h {fmt(c4, 2)} vs SpDP {fmt(csp, 2)}",
        note="" if ctx.standin else ctx.why,
        status=COMPARED if ctx.standin else NOT_COMPARABLE,
    )


# ---- Figs. 1-4 and 6: the sentences the paper writes about each figure, on the figure's own table

#: Fig. 1b "grows without bound": the log-log slope of D(K) over the swept durations is at least this (independent
#: blocks grow as sqrt(K), slope 0.5; a bounded distance flattens to slope 0)
GROWTH_SLOPE = 0.25
#: Fig. 3 "the distance does not grow": the log-log slope of the PSD distance is at most this
FLAT_SLOPE = 0.05
#: Fig. 3 "settle down to a constant": over the longer half of the durations the PSD distances stay within this
#: factor of each other (max / min)
SETTLED_FACTOR = 1.5
#: Fig. 2 "do not differ much": every pair of PSD estimates is closer than this share of their mean L2 norm
PSD_CLOSE_SHARE = 0.5
#: Fig. 4 / Sec. III-C "whose PSD is the same as the private PSD": the median over frequencies of
#: |log10(released estimate / phi_tilde)| is at most log10 of this factor
SAME_PSD_FACTOR = 1.5
#: Fig. 6 "superior performance in utility": the better release's correlation exceeds the other's by at least this
#: (the paper's gaps: 0.88 - 0.34 and 0.34 - (-0.015)); and the 1-week TrDP noise is this many times SpDP's
#: (paper: 180 / 2.1 = 86)
UTILITY_CORR_MARGIN = 0.1
NOISE_FACTOR_1WEEK = 10.0


def loglog_slope(x, y) -> float:
    """Least-squares slope of log y against log x (finite positive pairs only)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    if ok.sum() < 2:
        return math.nan
    return float(np.polyfit(np.log(x[ok]), np.log(y[ok]), 1)[0])


def _on_home(ctx, holds: bool, shown: str, differs: str) -> Measured:
    if not ctx.standin:
        return Measured(holds, shown=shown, status=NOT_COMPARABLE, note=f"precondition failed: {ctx.why}")
    return Measured(holds, shown=shown, note="" if holds else differs)


def fig1_time_distance_grows(ctx) -> Measured:
    d = ctx.distances
    slope = loglog_slope(d["hours"], d["time_distance_kw"])
    holds = bool(slope >= GROWTH_SLOPE)
    shown = (
        f"log-log slope {fmt(slope, 3)} over K = {fmt(float(d['hours'].min()), 3)}-{fmt(float(d['hours'].max()), 4)} h "
        f"(D {fmt(float(d['time_distance_kw'].iloc[0]), 3)} -> {fmt(float(d['time_distance_kw'].iloc[-1]), 3)} kW)"
    )
    return _on_home(ctx, holds, shown, "D(K) flattens: the distance between consecutive windows stays bounded here")


def fig3_time_distance_monotone(ctx) -> Measured:
    d = ctx.distances["time_distance_kw"].to_numpy(float)
    falls = int((np.diff(d) <= 0).sum())
    shown = f"{len(d)} durations, {falls} steps where D(K) does not increase"
    return _on_home(ctx, falls == 0 and len(d) >= 2, shown, "D(K) falls somewhere along K (distances.csv)")


def _psd_distances(ctx):
    d = ctx.distances.dropna(subset=["psd_distance_kw2h"])
    return d["hours"].to_numpy(float), d["psd_distance_kw2h"].to_numpy(float)


def fig3_psd_distance_does_not_grow(ctx) -> Measured:
    hours, psd = _psd_distances(ctx)
    slope = loglog_slope(hours, psd)
    shown = f"log-log slope {fmt(slope, 3)} (time domain: {fmt(loglog_slope(ctx.distances['hours'], ctx.distances['time_distance_kw']), 3)})"
    return _on_home(ctx, bool(slope <= FLAT_SLOPE), shown, "the PSD distance grows with the duration here")


def fig3_psd_distance_settles(ctx) -> Measured:
    hours, psd = _psd_distances(ctx)
    if len(psd) < 4:
        return Measured(False, shown="-", status=NOT_COMPARABLE, note="precondition failed: fewer than 4 PSD distances")
    late = psd[hours >= np.median(hours)]
    factor = float(late.max() / late.min())
    shown = (
        "PSD distance (kW^2 h) per duration: "
        + ", ".join(fmt(float(v), 2) for v in psd)
        + f"; longer half spans a factor {fmt(factor, 3)}"
    )
    return _on_home(
        ctx,
        factor <= SETTLED_FACTOR,
        shown,
        "the distance of one pair of consecutive windows fluctuates with the seasons they cover (heating vs cooling "
        "weather of the stand-in home), so it does not settle within the swept durations; it does not grow either "
        "(spdp-fig3-psd-distance-does-not-grow)",
    )


def fig2_psds_close(ctx) -> Measured:
    p = ctx.psd_lengths
    cols = [c for c in p.columns if c.startswith("psd_")]
    if len(cols) < 2:
        return Measured(False, shown="-", status=NOT_COMPARABLE, note="precondition failed: fewer than 2 PSD estimates")
    arr = [p[c].to_numpy(float) for c in cols]
    scale = float(np.mean([np.linalg.norm(a) for a in arr]))
    worst = max(float(np.linalg.norm(a - b)) for i, a in enumerate(arr) for b in arr[i + 1 :]) / scale
    shown = f"largest pairwise L2 distance {fmt(worst, 3)} x the mean PSD norm ({', '.join(cols)})"
    return _on_home(ctx, worst <= PSD_CLOSE_SHARE, shown, "the PSD estimates of different lengths differ by more")


def fig4_released_psd_is_private_psd(ctx) -> Measured:
    p = ctx.psd_release
    ratio = p["released_psd_estimate"].to_numpy(float) / p["phi_tilde"].to_numpy(float)
    dev = float(np.median(np.abs(np.log10(ratio[np.isfinite(ratio) & (ratio > 0)]))))
    shown = f"median |log10(released PSD / phi~)| {fmt(dev, 3)} (factor {fmt(10**dev, 3)})"
    return Measured(
        bool(dev <= math.log10(SAME_PSD_FACTOR)),
        shown=shown,
        note=""
        if dev <= math.log10(SAME_PSD_FACTOR)
        else "the released series' PSD departs from phi~ (psd_release.csv)",
    )


def fig6_utility(better: str, worse: str, noise_factor: float | None = None, variant: str = "ours"):
    """Fig. 6 / Table III: ``better``'s release has a correlation at least UTILITY_CORR_MARGIN above ``worse``'s (and,
    with ``noise_factor``, ``worse``'s added noise is at least that many times ``better``'s). ``variant``: "ours"
    reads Table III of our B (results/spdp/table3.csv, Fig. 6), "paper_b" the paper-parameter rows
    (results/spdp/table3_paper_b.csv at the printed calibration, the rows Fig. 6 with the paper's B prints)."""

    def measure(ctx) -> Measured:
        t3 = ctx.t3 if variant == "ours" else pd.DataFrame(ctx.paper_b).T
        gap = float(t3.loc[better, "correlation"] - t3.loc[worse, "correlation"])
        holds = gap >= UTILITY_CORR_MARGIN
        shown = f"corr {better} {fmt(float(t3.loc[better, 'correlation']), 2)} - {worse} {fmt(float(t3.loc[worse, 'correlation']), 2)} = {fmt(gap, 2)}"
        if noise_factor is not None:
            ratio = float(t3.loc[worse, "noise_std_kw"] / t3.loc[better, "noise_std_kw"])
            holds = holds and ratio >= noise_factor
            shown += f"; noise std ratio {fmt(ratio, 3)}"
        note = ctx.ours_note if variant == "ours" else f"paper-parameter variant: {ctx.paper_b_notes[better]}"
        return _on_home(ctx, bool(holds), shown, note)

    return measure
