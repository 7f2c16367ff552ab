"""dpkmeans, Sec. V-B "Standard Test Systems" (Ravi et al., IEEE TSG 2022, Figs. 12-13): voltages on
two feeders under true and differentially private synthetic daily load profiles.

Steps of the paper, as implemented here (config section ``grid``):

1. sample P' houses from the true profiles, class-weighted (:func:`class_counts`: each cluster gets
   its population share of P', largest-remainder rounding; houses drawn without replacement within
   a cluster). P' is the number of load buses used (``grid.experiment.load_buses``);
2. draw the same number of synthetic profiles per cluster (:func:`draw_matched`); bus p gets the true
   house p and a synthetic profile of the same cluster. ``grid.experiment.n_reference_draws`` further
   independent class-matched samples of true houses ("reference1", ...) give the distance two samples
   of real houses have, which calibrates the claim;
3. scale the profiles of each bus by a multiplier fixed from the true sample (``grid.experiment.scaling``,
   :func:`bus_multipliers`), set bus active loads,
   reactive load = ``grid.opf.q_to_p_ratio`` x active;
4. AC OPF per hour (one wildcard job per batch of hours), voltage magnitude and angle at every bus;
5. histograms (Figs. 12-13), distances (Wasserstein-1, KS, bootstrap over buses), share of
   bus-hours outside the report band, claims.
"""

from __future__ import annotations

import logging
import re

import numpy as np
import pandas as pd

from dpgrid.claims import Claim, boolean_claim, fmt, write_claims
from dpgrid.io import read_table, write_json, write_table
from dpgrid.seeds import job_rng
from dpgrid.grid.opf import bus_names

LOG = logging.getLogger(__name__)

HOUR_COLUMNS = [f"h{h:02d}" for h in range(25)]


def profile_sets(n_reference: int) -> list[str]:
    """Names of the profile sets: true, synthetic, reference1..reference<n_reference>."""
    if n_reference < 1:
        raise ValueError(f"grid.experiment.n_reference_draws must be >= 1, got {n_reference}")
    return ["true", "synthetic"] + [f"reference{r}" for r in range(1, n_reference + 1)]


def _set_order(name: str) -> int:
    if name == "true":
        return 0
    if name == "synthetic":
        return 1
    m = re.fullmatch(r"reference(\d+)", name)
    if not m:
        raise ValueError(f"unknown profile set {name!r}")
    return 1 + int(m.group(1))

QUANTITIES = {"vm_pu": "voltage magnitude (p.u.)", "va_degree": "voltage angle (degree)"}
FIGURE_OF_FEEDER = {"ieee123": "fig12", "case141": "fig13"}
FEEDER_TITLE = {"ieee123": "IEEE 123-bus (balanced)", "case141": "MATPOWER 141-bus"}


# ------------------------------------------------------------------------------------------------
# inputs
# ------------------------------------------------------------------------------------------------

def read_profiles(path) -> pd.DataFrame:
    """Read a profile table (profile_id, cluster, h00..h24 in kW) and validate it.

    Values must be finite; negative values (net generation, or noise in a synthetic profile) are
    allowed and logged.
    """
    df = read_table(path, dtype={"profile_id": str})
    missing = [c for c in ["profile_id", "cluster", *HOUR_COLUMNS] if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}")
    if df.empty:
        raise ValueError(f"{path}: no profiles")
    if df["profile_id"].duplicated().any():
        dup = df.loc[df["profile_id"].duplicated(), "profile_id"].iloc[0]
        raise ValueError(f"{path}: field 'profile_id' has duplicate value {dup!r}")
    cl = pd.to_numeric(df["cluster"], errors="coerce")
    if cl.isna().any() or (cl != np.round(cl)).any():
        bad = df.loc[cl.isna() | (cl != np.round(cl)), "cluster"].iloc[0]
        raise ValueError(f"{path}: field 'cluster' has non-integer value {bad!r}")
    df["cluster"] = cl.astype(int)
    vals = df[HOUR_COLUMNS].apply(pd.to_numeric, errors="coerce")
    bad = ~np.isfinite(vals.to_numpy(float))
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(f"{path}: field {HOUR_COLUMNS[j]!r} of profile {df['profile_id'].iloc[i]!r} has "
                         f"value {df[HOUR_COLUMNS[j]].iloc[i]!r} (need a finite kW value)")
    df[HOUR_COLUMNS] = vals.astype(float)
    neg = float((vals.to_numpy(float) < 0).mean())
    if neg > 0:
        # A negative value is net generation at the bus; the OPF takes it as a negative load.
        LOG.warning("%s: %.1f %% of the hourly values are negative (net generation)", path, 100 * neg)
    return df


def class_counts(clusters, n: int) -> dict[int, int]:
    """Class-weighted allocation of ``n`` draws: n_k proportional to cluster size, largest remainder.

    ``sum(n_k) == n`` and ``floor(n N_k / N) <= n_k <= ceil(n N_k / N)`` (paper Sec. V-B, step 1: "the
    six classes are weighed according to their population"). Ties in the remainder go to the larger
    cluster, then the smaller label, so the allocation is deterministic.
    """
    sizes = pd.Series(clusters).value_counts().sort_index()
    total = int(sizes.sum())
    if not 0 < n <= total:
        raise ValueError(f"cannot sample {n} houses from {total} profiles (P' must be in 1..{total})")
    quota = n * sizes.to_numpy(float) / total
    base = np.floor(quota).astype(int)
    rem = quota - base
    order = sorted(range(len(sizes)), key=lambda i: (-round(rem[i], 12), -sizes.iloc[i], sizes.index[i]))
    for i in order[: n - int(base.sum())]:
        base[i] += 1
    return {int(k): int(v) for k, v in zip(sizes.index, base)}


def draw_matched(profiles: pd.DataFrame, clusters_needed, rng: np.random.Generator, *, source: str) -> pd.DataFrame:
    """For each entry of ``clusters_needed`` draw one profile of that cluster (without replacement).

    Returns the drawn rows in the order of ``clusters_needed``.
    """
    clusters_needed = np.asarray(clusters_needed, dtype=int)
    out = np.empty(len(clusters_needed), dtype=int)
    for k in np.unique(clusters_needed):
        pos = np.flatnonzero(clusters_needed == k)
        pool = np.flatnonzero(profiles["cluster"].to_numpy() == k)
        if len(pool) < len(pos):
            raise ValueError(f"{source}: cluster {k} has {len(pool)} profile(s), {len(pos)} needed")
        out[pos] = rng.choice(pool, size=len(pos), replace=False)
    return profiles.iloc[out].reset_index(drop=True)


def sample_houses(true: pd.DataFrame, synthetic: pd.DataFrame, n_buses: int, rng: np.random.Generator,
                  n_reference: int = 1) -> dict:
    """Steps 1-2: class-weighted true sample, matched synthetic sample, independent reference samples.

    Returns ``{"true", "synthetic", "reference1", ...}`` -> frames of ``n_buses`` rows; row p goes to
    load bus p. The clusters of all frames agree row by row.
    """
    counts = class_counts(true["cluster"], n_buses)
    clusters = np.repeat(list(counts), list(counts.values()))
    clusters = clusters[rng.permutation(len(clusters))]  # random placement of houses on buses
    out = {
        "true": draw_matched(true, clusters, rng, source="true profiles"),
        "synthetic": draw_matched(synthetic, clusters, rng, source="synthetic profiles"),
    }
    for name in profile_sets(n_reference)[2:]:
        out[name] = draw_matched(true, clusters, rng, source=f"true profiles ({name} sample)")
    return out


def bus_multipliers(true_kw: np.ndarray, base_p_mw: np.ndarray, rule: str) -> np.ndarray:
    """MW-per-kW multiplier of each load bus, from the true sample (rows = buses, columns = hours).

    The same multipliers are applied to the synthetic and reference profiles of the bus, so every
    difference in load between the runs comes from the profiles. With base-case bus loads ``b_p``
    (total ``B``) and true profiles ``x_{p,t}`` (kW):

    - ``none``: m_p = 1e-3 (the paper's literal step 3: the house's kW are the bus load, in MW);
    - ``uniform_peak``: m_p = B / max_t sum_p x_{p,t} (one factor; the true aggregate peak equals B);
    - ``uniform_mean``: m_p = B / mean_t sum_p x_{p,t};
    - ``bus_weighted_peak``: m_p = b_p / c with c = max_t sum_p b_p x_{p,t} / B: each house is scaled
      by its bus's base load (large loads where the feeder was designed for them) and the true
      aggregate peak again equals B.
    """
    x = np.asarray(true_kw, dtype=float)
    b = np.asarray(base_p_mw, dtype=float)
    if x.ndim != 2 or b.shape != (x.shape[0],):
        raise ValueError(f"bus_multipliers: need (bus, hour) profiles and one base load per bus, got {x.shape}, {b.shape}")
    total = float(b.sum())
    if not total > 0:
        raise ValueError("feeder base load must be positive")
    if rule == "none":
        return np.full(len(b), 1e-3)
    if rule in ("uniform_peak", "uniform_mean"):
        agg = x.sum(axis=0)
        level = agg.max() if rule == "uniform_peak" else agg.mean()
        if not level > 0:
            raise ValueError("true sample has zero aggregate load; cannot scale")
        return np.full(len(b), total / level)
    if rule == "bus_weighted_peak":
        if np.any(b <= 0):
            raise ValueError("grid.experiment.scaling 'bus_weighted_peak' needs a base load on every load bus "
                             "(use load_buses: loaded)")
        c = float((b[:, None] * x).sum(axis=0).max()) / total
        if not c > 0:
            raise ValueError("true sample has zero aggregate load; cannot scale")
        return b / c
    raise ValueError(f"grid.experiment.scaling: unknown rule {rule!r} "
                     "(use 'none', 'uniform_peak', 'uniform_mean' or 'bus_weighted_peak')")


def base_bus_loads(net, buses) -> np.ndarray:
    """Base-case active load (MW) summed per bus, for ``buses`` (0 where a bus has none)."""
    per_bus = net.load[net.load.in_service].groupby("bus")["p_mw"].sum()
    return per_bus.reindex(np.asarray(buses, dtype=int), fill_value=0.0).to_numpy(float)


def select_load_buses(net, rule: str) -> np.ndarray:
    """The buses that receive a house: ``loaded`` (buses with a base-case load) or ``all_nonslack``."""
    from dpgrid.grid.opf import load_buses

    if rule == "loaded":
        return load_buses(net)
    if rule == "all_nonslack":
        slack = set(net.ext_grid.bus.astype(int))
        return np.array([b for b in net.bus.index.astype(int) if b not in slack], dtype=int)
    raise ValueError(f"grid.experiment.load_buses: unknown rule {rule!r} (use 'loaded' or 'all_nonslack')")


def opf_settings(cfg: dict):
    from dpgrid.grid.opf import OPFSettings

    o = cfg["opf"]
    return OPFSettings(vm_min_pu=o["vm_min_pu"], vm_max_pu=o["vm_max_pu"], slack_cost_per_mw=o["slack_cost_per_mw"],
                       q_to_p_ratio=o["q_to_p_ratio"], init=o["init"], branch_limits=o["branch_limits"],
                       numba=o["numba"])


def hour_batches(cfg: dict) -> list[list[int]]:
    """The hours of ``grid.experiment.hours`` cut into jobs of ``hours_per_job``."""
    hours = list(cfg["experiment"]["hours"])
    k = int(cfg["experiment"]["hours_per_job"])
    return [hours[i:i + k] for i in range(0, len(hours), k)]


# ------------------------------------------------------------------------------------------------
# jobs (rule bodies)
# ------------------------------------------------------------------------------------------------

def feeder_job(smk) -> None:
    """Build one feeder, check its base power flow, cache it as pandapower JSON plus a check file."""
    import pandapower as pp

    from dpgrid.grid import feeders

    name = smk.wildcards.feeder
    source = smk.input.master if "master" in smk.input.keys() else None
    net = feeders.build_feeder(name, source=source, params=dict(smk.params.feeder_config))
    pp.runpp(net, calculate_voltage_angles=True, numba=False)
    check = {"feeder": name, "buses": len(net.bus), "loads": len(net.load), "load_buses": len(set(net.load.bus)),
             "load_p_mw": float(net.load.p_mw.sum()), "load_q_mvar": float(net.load.q_mvar.sum()),
             "pf_vm_min": float(net.res_bus.vm_pu.min()), "pf_vm_max": float(net.res_bus.vm_pu.max()),
             "slack_p_mw": float(net.res_ext_grid.p_mw.sum())}
    if name == "ieee123":
        ref = feeders.opendss_bus_voltages(source)
        cmp = compare_with_opendss(net, ref)
        check.update(cmp)
    LOG.info("feeder %s: %s", name, check)
    feeders.save_feeder(net, smk.output.net)
    write_json(check, smk.output.check)


def compare_with_opendss(net, ref: pd.DataFrame) -> dict:
    """Max |V_pandapower - V_OpenDSS| on three-phase buses (positive sequence) and on all buses (phase mean)."""
    r = pd.DataFrame({"bus": net.bus["name"].astype(str).str.lower().to_numpy(), "vm": net.res_bus.vm_pu.to_numpy()})
    m = ref.merge(r, on="bus", how="inner")
    three = m[m.n_nodes == 3]
    return {"opendss_buses_matched": int(len(m)), "opendss_buses": int(len(ref)),
            "opendss_max_abs_dv1_3ph": float((three.vm - three.v1_pu).abs().max()),
            "opendss_max_abs_dvmean_all": float((m.vm - m.vmean_pu).abs().max()),
            "opendss_p_mw": float(ref.attrs["p_mw"])}


def assignment_job(smk) -> None:
    """Steps 1-3 for one feeder: sample houses, place them on load buses, write the bus loads in MW."""
    from dpgrid.grid.feeders import load_feeder
    from dpgrid.grid.loads import plausible_loads

    exp = smk.params.experiment
    feeder = smk.wildcards.feeder
    net = load_feeder(smk.input.net)
    true = read_profiles(smk.input.true)
    synthetic = read_profiles(smk.input.synthetic)
    synthetic, plausibility = plausible_loads(synthetic, true, exp["load_rule"], columns=HOUR_COLUMNS)
    buses = select_load_buses(net, exp["load_buses"])
    rng = job_rng(int(smk.params.seed), "dpkmeans", exp["seed_keys"]["sample"], feeder)
    sets = profile_sets(int(exp["n_reference_draws"]))
    sample = sample_houses(true, synthetic, len(buses), rng, n_reference=len(sets) - 2)
    base_p = base_bus_loads(net, buses)
    scale = bus_multipliers(sample["true"][HOUR_COLUMNS].to_numpy(), base_p, exp["scaling"])
    rows = []
    for name in sets:
        s = sample[name]
        frame = pd.DataFrame({"profiles": name, "bus": buses, "bus_name": bus_names(net)[net.bus.index.get_indexer(buses)],
                              "cluster": s["cluster"].to_numpy(), "profile_id": s["profile_id"].to_numpy()})
        frame[HOUR_COLUMNS] = s[HOUR_COLUMNS].to_numpy() * scale[:, None]
        rows.append(frame)
    loads = pd.concat(rows, ignore_index=True)
    write_table(loads, smk.output.loads)
    summary = {"feeder": feeder, "n_load_buses": len(buses), "base_load_mw": float(base_p.sum()),
               "scale_mw_per_kw_min": float(scale.min()), "scale_mw_per_kw_max": float(scale.max()),
               "scaling_rule": exp["scaling"], "class_counts": class_counts(true["cluster"], len(buses)),
               "load_rule": plausibility.as_dict(),
               "aggregate_mw": {n: loads[loads.profiles == n][HOUR_COLUMNS].sum().round(9).tolist() for n in sets}}
    write_json(summary, smk.output.summary)
    LOG.info("feeder %s: P' = %d, peak true %.4f MW, peak synthetic %.4f MW", feeder, len(buses),
             max(summary["aggregate_mw"]["true"]), max(summary["aggregate_mw"]["synthetic"]))


def run_hours(net, loads: pd.DataFrame, hours, settings, *, feeder: str, profiles: str, regulator_master=None):
    """OPF for ``hours`` of profile set ``profiles``; returns (voltages, status) frames.

    ``regulator_master``: path of IEEE123Master.dss to solve the regulator taps per snapshot
    (:class:`dpgrid.grid.feeders.RegulatorControl`); None keeps the taps of ``net``.
    """
    from dpgrid.grid.feeders import RegulatorControl
    from dpgrid.grid.opf import prepare_opf_network, run_snapshot, snapshot_frames
    from dpgrid.pipeline import Progress

    sub = loads[loads.profiles == profiles]
    if sub.empty:
        raise ValueError(f"no loads for profile set {profiles!r}")
    opf_net = prepare_opf_network(net, sub["bus"].to_numpy(int), settings)
    regulators = None if regulator_master is None else RegulatorControl(regulator_master, opf_net, sub["bus"])
    results = {}
    progress = Progress(len(hours), f"OPF {feeder}/{profiles}")
    for h in hours:
        results[int(h)] = run_snapshot(opf_net, sub[HOUR_COLUMNS[int(h)]].to_numpy(float), settings,
                                       regulators=regulators)
        progress.step()
    return snapshot_frames(opf_net, results, feeder=feeder, profiles=profiles)


def snapshot_job(smk) -> None:
    """Step 4 for one batch of hours of one profile set on one feeder (wildcards feeder, profiles, batch)."""
    from dpgrid.grid.feeders import load_feeder

    hours = [int(h) for h in smk.params.hours]
    net = load_feeder(smk.input.net)
    loads = read_table(smk.input.loads, dtype={"profile_id": str, "bus_name": str, "profiles": str})
    master = smk.input.master if smk.params.regulator_taps == "per_snapshot" else None
    volt, status = run_hours(net, loads, hours, opf_settings({"opf": dict(smk.params.opf)}), feeder=smk.wildcards.feeder,
                             profiles=smk.wildcards.profiles, regulator_master=master)
    write_table(volt, smk.output.voltages)
    write_table(status, smk.output.status)


#: dtypes of the voltage/status tables ("true" must stay a string, not a boolean).
VOLT_DTYPES = {"profiles": str, "bus_name": str, "feeder": str}


def collect_job(smk) -> None:
    """Concatenate the batch outputs of one feeder (sorted by profile set, hour, bus)."""
    volt = pd.concat([read_table(p, dtype=VOLT_DTYPES) for p in smk.input.voltages], ignore_index=True)
    status = pd.concat([read_table(p, dtype=VOLT_DTYPES) for p in smk.input.status], ignore_index=True)
    volt = volt.sort_values(["profiles", "hour", "bus"], key=lambda s: s.map(_set_order) if s.name == "profiles" else s)
    status = status.sort_values(["profiles", "hour"], key=lambda s: s.map(_set_order) if s.name == "profiles" else s)
    write_table(volt.reset_index(drop=True), smk.output.voltages)
    write_table(status.reset_index(drop=True), smk.output.status)
    bad = status[~status.converged.astype(bool)]
    for r in bad.itertuples():
        LOG.warning("%s/%s hour %d: %s", r.feeder, r.profiles, r.hour, r.message)


def common_converged_hours(status: pd.DataFrame) -> list[int]:
    """Hours whose OPF converged for every profile set present."""
    ok = status.pivot_table(index="hour", columns="profiles", values="converged", aggfunc="all")
    return sorted(int(h) for h in ok.index[ok.astype(bool).all(axis=1)])


def bus_hour_matrix(volt: pd.DataFrame, profiles: str, quantity: str, hours) -> np.ndarray:
    """(bus, hour) array of ``quantity`` for ``profiles`` over ``hours``."""
    sub = volt[(volt.profiles == profiles) & volt.hour.isin(hours)]
    return sub.pivot(index="bus", columns="hour", values=quantity).loc[:, list(hours)].to_numpy(float)


def distance_tables(volt: pd.DataFrame, status: pd.DataFrame, *, feeder: str, n_resamples: int, level: float,
                    band: tuple[float, float], rng_for) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Distance rows (quantity x comparison) and band rows (profile set) for one feeder.

    ``rng_for(quantity, comparison)`` returns the generator of that bootstrap.
    """
    from dpgrid.grid import voltage_stats as vs
    from dpgrid.grid.opf import failure_summary

    hours = common_converged_hours(status)
    sets = sorted(status.profiles.unique(), key=_set_order)
    if sets[:2] != ["true", "synthetic"] or len(sets) < 3:
        raise ValueError(f"{feeder}: status table has profile sets {sets}; need true, synthetic, reference1..")
    n_snap = status.groupby("profiles").size().to_dict()
    n_conv = status.groupby("profiles")["converged"].sum().to_dict()
    dist, bandrows = [], []
    if not hours:
        LOG.warning("%s: no hour converged for every profile set; distances are NaN", feeder)
    for q in QUANTITIES:
        mats = {p: bus_hour_matrix(volt, p, q, hours) for p in sets} if hours else {}
        for other in sets[1:]:
            row = {"feeder": feeder, "quantity": q, "comparison": f"true_vs_{other}", "hours_used": len(hours)}
            for stat_name, fn in (("w1", vs.wasserstein1), ("ks", vs.ks_statistic)):
                if hours:
                    iv = vs.bus_bootstrap(mats["true"], mats[other], fn, n_resamples=n_resamples, level=level,
                                          rng=rng_for(q, other, stat_name))
                    row.update({stat_name: iv.estimate, f"{stat_name}_low": iv.low, f"{stat_name}_high": iv.high})
                else:
                    row.update({stat_name: np.nan, f"{stat_name}_low": np.nan, f"{stat_name}_high": np.nan})
            row["n_values"] = int(mats["true"].size) if hours else 0
            dist.append(row)
    lo, hi = band
    for p in sets:
        m = bus_hour_matrix(volt, p, "vm_pu", hours) if hours else np.empty((0, 0))
        row = {"feeder": feeder, "profiles": p, "snapshots": int(n_snap.get(p, 0)),
               "converged": int(n_conv.get(p, 0)), "failed": failure_summary(status[status.profiles == p]),
               "hours_used": len(hours), "band_low_pu": lo, "band_high_pu": hi}
        if hours:
            iv = vs.bus_bootstrap(m, None, lambda x: vs.share_outside(x, lo, hi), n_resamples=n_resamples,
                                  level=level, rng=rng_for("band", p, "share"))
            row.update({"share_outside": iv.estimate, "share_outside_low": iv.low, "share_outside_high": iv.high,
                        "vm_min": float(np.min(m)), "vm_max": float(np.max(m))})
        else:
            row.update({"share_outside": np.nan, "share_outside_low": np.nan, "share_outside_high": np.nan,
                        "vm_min": np.nan, "vm_max": np.nan})
        bandrows.append(row)
    return pd.DataFrame(dist), pd.DataFrame(bandrows)


def distances_job(smk) -> None:
    """Table of W1 / KS distances (with bus-bootstrap intervals) and of the share outside the band."""
    st = smk.params.stats
    dists, bands = [], []
    feeders = list(smk.params.feeders)
    if len(feeders) != len(smk.input.voltages) or len(feeders) != len(smk.input.status):
        raise ValueError(f"distances: {len(feeders)} feeders but {len(smk.input.voltages)} voltage tables")
    for feeder, vpath, spath in zip(feeders, smk.input.voltages, smk.input.status):
        volt = read_table(vpath, dtype=VOLT_DTYPES)
        status = read_table(spath, dtype=VOLT_DTYPES)

        def rng_for(*keys, _f=feeder):
            return job_rng(smk.config["seed"], "dpkmeans", smk.params.seed_key, _f, *keys)

        d, b = distance_tables(volt, status, feeder=feeder, n_resamples=st["n_bootstrap"], level=st["level"],
                               band=tuple(st["report_band_pu"]), rng_for=rng_for)
        dists.append(d)
        bands.append(b)
    write_table(pd.concat(dists, ignore_index=True), smk.output.distances)
    write_table(pd.concat(bands, ignore_index=True), smk.output.band)


def figure_job(smk) -> None:
    """Fig. 12 / 13: histograms of voltage magnitude and angle, true vs synthetic (converged hours)."""
    from dpgrid.figures import PALETTE, figure, save_figure
    from dpgrid.grid.opf import failure_summary

    feeder = smk.params.feeder
    volt = read_table(smk.input.voltages, dtype=VOLT_DTYPES)
    status = read_table(smk.input.status, dtype=VOLT_DTYPES)
    hours = common_converged_hours(status)
    n_bins = int(smk.params.bins)
    fig, axes = figure(1, 2, width=7.0, height=2.8)
    for ax, (q, label) in zip(axes, QUANTITIES.items()):
        data = {p: volt[(volt.profiles == p) & volt.hour.isin(hours)][q].to_numpy(float) for p in ("true", "synthetic")}
        allv = np.concatenate(list(data.values()))
        if allv.size:
            lo, hi = float(allv.min()), float(allv.max())
            bins = np.linspace(lo, hi if hi > lo else lo + 1e-6, n_bins + 1)
            for p, v in data.items():
                ax.hist(v, bins=bins, density=True, histtype="step" if p == "true" else "stepfilled",
                        alpha=1.0 if p == "true" else 0.45, color=PALETTE[p], linewidth=1.3,
                        label=f"{p} profiles", zorder=3 if p == "true" else 2)
        ax.set_xlabel(label)
        ax.set_ylabel("density")
    axes[0].legend(loc="upper left")
    n_total = status.groupby("profiles").size().max()
    failed = failure_summary(status)
    fig.suptitle(f"{FEEDER_TITLE.get(feeder, feeder)}: {len(hours)} of {n_total} hourly OPF snapshots "
                 f"converged for every profile set" + (f"\nnot converged: {failed}" if failed else ""), fontsize=9)
    if failed:
        fig.subplots_adjust(top=0.80)  # room for the second title line
    save_figure(fig, smk.output.pdf)


def claims_job(smk) -> None:
    """claims_opf.csv: voltage-distribution match per feeder and quantity, band shares, convergence."""
    dist = read_table(smk.input.distances, dtype=VOLT_DTYPES)
    band = read_table(smk.input.band, dtype=VOLT_DTYPES)
    st = smk.params.stats
    claims = opf_claims(dist, band, match_factor=st["match_factor"], band_abs_tol=st["band_share_abs_tol"])
    write_claims(claims, smk.output.claims)


def opf_claims(dist: pd.DataFrame, band: pd.DataFrame, *, match_factor: float, band_abs_tol: float) -> list[Claim]:
    """Claims of Figs. 12-13 with the tolerance rule stated in docs/grid.md.

    Distribution match (per feeder and quantity): reproduced when W1(true, synthetic) <= match_factor
    x the mean of W1(true, reference_r) over the independent reference draws of real houses, i.e. the
    synthetic profiles move the voltage distribution at most ``match_factor`` times as far from the
    true sample's as drawing another sample of real houses does.
    """
    out: list[Claim] = []
    for feeder, fig in FIGURE_OF_FEEDER.items():
        fd = dist[dist.feeder == feeder]
        fb = band[band.feeder == feeder]
        if fd.empty:
            continue
        for q, label in QUANTITIES.items():
            s = fd[(fd.quantity == q) & (fd.comparison == "true_vs_synthetic")].iloc[0]
            refs = fd[(fd.quantity == q) & fd.comparison.str.startswith("true_vs_reference")]
            ref_w1 = float(refs.w1.mean())
            tol = match_factor * ref_w1
            holds = bool(np.isfinite(s.w1) and s.w1 <= tol)
            unit = "p.u." if q == "vm_pu" else "deg"
            note = (f"W1(true, reference draws) = {', '.join(fmt(v, 3) for v in refs.w1)} {unit}; "
                    f"KS true-vs-synthetic {fmt(s.ks, 3)} [{fmt(s.ks_low, 3)}, {fmt(s.ks_high, 3)}], "
                    f"true-vs-reference {', '.join(fmt(v, 3) for v in refs.ks)}; {int(s.hours_used)} hours used")
            if not holds:
                note = "synthetic profiles shift the distribution more than the tolerance allows; " + note
            out.append(Claim(
                claim_id=f"{fig}_{feeder}_{q}_match", paper="dpkmeans", target=fig,
                description=f"{FEEDER_TITLE[feeder]}: {label} distribution under synthetic profiles matches the true one",
                paper_value="good match (visual)",
                reproduced_value=f"W1 {fmt(s.w1, 3)} {unit} [{fmt(s.w1_low, 3)}, {fmt(s.w1_high, 3)}]",
                tolerance=(f"W1(true,synthetic) <= {match_factor:g} x mean W1(true,reference) = {fmt(tol, 3)} {unit} "
                           f"({len(refs)} reference draw(s))"),
                verdict="reproduced" if holds else "differs", note=note))
        t = fb[fb.profiles == "true"].iloc[0]
        s = fb[fb.profiles == "synthetic"].iloc[0]
        diff = float(s.share_outside - t.share_outside)
        holds = bool(np.isfinite(diff) and abs(diff) <= band_abs_tol)
        out.append(Claim(
            claim_id=f"{fig}_{feeder}_share_outside_band", paper="dpkmeans", target="table_voltage_band",
            description=(f"{FEEDER_TITLE[feeder]}: share of bus-hours outside {t.band_low_pu:g}-{t.band_high_pu:g} p.u., "
                         "synthetic vs true profiles"),
            paper_value=f"not printed; true profiles give {fmt(t.share_outside, 3)}",
            reproduced_value=f"{fmt(s.share_outside, 3)} [{fmt(s.share_outside_low, 3)}, {fmt(s.share_outside_high, 3)}]",
            tolerance=f"abs {band_abs_tol:g}", verdict="reproduced" if holds else "differs",
            note="" if holds else f"synthetic minus true = {fmt(diff, 3)}"))
        n_all = int(fb.snapshots.sum())
        n_ok = int(fb.converged.sum())
        out.append(boolean_claim(
            f"{fig}_{feeder}_opf_converged", "dpkmeans", fig,
            f"{FEEDER_TITLE[feeder]}: AC OPF converges for every hourly snapshot (true, synthetic, reference draws)",
            n_ok == n_all, paper_value="every hour of both runs (implicit)",
            reproduced_value=f"{n_ok} of {n_all} snapshots converged",
            note="" if n_ok == n_all else ("not converged (cause, status.csv): "
                                           + "; ".join(str(f) for f in fb.failed.fillna("") if str(f))
                                           + "; left out of the histograms and distances (hours used are those "
                                             "converged for every set)")))
    return out
