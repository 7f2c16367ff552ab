"""Job bodies of the AC-OPF voltage study (dpkmeans Figs. 12-13); the paper's steps and how they map to the
config are in the package docstring, :mod:`dpgrid.papers.dpkmeans.opf`."""

from __future__ import annotations

import logging

import pandas as pd

from dpgrid.core.io import read_table, write_json, write_table
from dpgrid.core.seeds import job_rng
from dpgrid.data.profiles import PROFILE_HOURS as HOUR_COLUMNS
from dpgrid.grid.load_assignment import (
    base_bus_loads,
    bus_multipliers,
    class_counts,
    profile_sets,
    read_profiles,
    sample_houses,
    select_load_buses,
    set_order,
)
from dpgrid.grid.opf import bus_names
from dpgrid.papers.dpkmeans.opf.paper import VOLT_DTYPES

LOG = logging.getLogger(__name__)


def opf_settings(cfg: dict):
    from dpgrid.grid.opf import OPFSettings

    o = cfg["opf"]
    return OPFSettings(
        vm_min_pu=o["vm_min_pu"],
        vm_max_pu=o["vm_max_pu"],
        slack_cost_per_mw=o["slack_cost_per_mw"],
        q_to_p_ratio=o["q_to_p_ratio"],
        init=o["init"],
        branch_limits=o["branch_limits"],
        numba=o["numba"],
    )


def feeder_job(job) -> None:
    """Build one feeder, check its base power flow, cache it as pandapower JSON plus a check file."""
    import pandapower as pp

    from dpgrid.data.download import verify_unchanged
    from dpgrid.grid import feeders

    name = job.wildcards.feeder
    verify_unchanged(dict(job.params.pins))
    source = job.input.master if "master" in job.input.keys() else None
    net = feeders.build_feeder(name, source=source, params=dict(job.params.feeder_config))
    pp.runpp(net, calculate_voltage_angles=True, numba=False)
    check = {
        "feeder": name,
        "buses": len(net.bus),
        "loads": len(net.load),
        "load_buses": len(set(net.load.bus)),
        "load_p_mw": float(net.load.p_mw.sum()),
        "load_q_mvar": float(net.load.q_mvar.sum()),
        "pf_vm_min": float(net.res_bus.vm_pu.min()),
        "pf_vm_max": float(net.res_bus.vm_pu.max()),
        "slack_p_mw": float(net.res_ext_grid.p_mw.sum()),
    }
    if name == "ieee123":
        ref = feeders.opendss_bus_voltages(source)
        cmp = feeders.compare_with_opendss(net, ref)
        check.update(cmp)
    LOG.info("feeder %s: %s", name, check)
    feeders.save_feeder(net, job.output.net)
    write_json(check, job.output.check)


def _log_loads(feeder, buses, base_p, scaling, agg, sample) -> None:
    """Log the aggregate true and synthetic feeder loads of :func:`assignment_job` and the profiles' own levels."""
    LOG.info(
        "feeder %s: P' = %d, true %.4f-%.4f MW (peak = base load %.4f MW by rule %s), synthetic %.4f-%.4f MW "
        "(peak %.2f x the true one; the multiplier is the true sample's, so this is the synthetic profiles' "
        "own level: mean %.3f kW after the load rule vs %.3f kW true, sd %.3f vs %.3f kW)",
        feeder,
        len(buses),
        min(agg["true"]),
        max(agg["true"]),
        float(base_p.sum()),
        scaling,
        min(agg["synthetic"]),
        max(agg["synthetic"]),
        max(agg["synthetic"]) / max(agg["true"]),
        float(sample["synthetic"][HOUR_COLUMNS].to_numpy().mean()),
        float(sample["true"][HOUR_COLUMNS].to_numpy().mean()),
        float(sample["synthetic"][HOUR_COLUMNS].to_numpy().std()),
        float(sample["true"][HOUR_COLUMNS].to_numpy().std()),
    )


def check_profiles_per_bus(n_profiles: int, n_buses: int, feeder: str, load_buses, source: str) -> None:
    """The OPF places one household's profile on each load bus, drawn without replacement (paper Sec. V-B, step 1):
    fewer profiles than load buses is a config error naming the keys that set the two numbers and the minimum."""
    if n_profiles < n_buses:
        raise OPFConfigError(
            f"{source}: the {feeder} OPF draws one household profile per load bus without replacement: "
            f"{n_buses} load buses (grid.experiment.load_buses = {load_buses!r}) need at least {n_buses} "
            f"households, the dpkmeans data (dpkmeans.data_source) have {n_profiles}: give that experiment of "
            f"data.experiments at least {n_buses} meters, or remove the OPF targets (fig12, fig13) from "
            f"dpkmeans.targets"
        )


class OPFConfigError(ValueError):
    """The configured data cannot feed the OPF study."""


def assignment_job(job) -> None:
    """Steps 1-3 for one feeder: sample houses, place them on load buses, write the bus loads in MW."""
    from dpgrid.grid.feeders import load_feeder
    from dpgrid.grid.loads import plausible_loads

    exp = job.params.experiment
    feeder = job.wildcards.feeder
    net = load_feeder(job.input.net)
    true = read_profiles(job.input.true)
    synthetic = read_profiles(job.input.synthetic)
    synthetic, plausibility = plausible_loads(synthetic, true, exp["load_rule"], columns=HOUR_COLUMNS)
    buses = select_load_buses(net, exp["load_buses"])
    check_profiles_per_bus(len(true), len(buses), feeder, exp["load_buses"], str(job.input.true))
    rng = job_rng(int(job.params.seed), "dpkmeans", exp["seed_keys"]["sample"], feeder)
    sets = profile_sets(int(exp["n_reference_draws"]))
    sample = sample_houses(true, synthetic, len(buses), rng, n_reference=len(sets) - 2)
    base_p = base_bus_loads(net, buses)
    scale = bus_multipliers(sample["true"][HOUR_COLUMNS].to_numpy(), base_p, exp["scaling"])
    rows = []
    for name in sets:
        s = sample[name]
        frame = pd.DataFrame(
            {
                "profiles": name,
                "bus": buses,
                "bus_name": bus_names(net)[net.bus.index.get_indexer(buses)],
                "cluster": s["cluster"].to_numpy(),
                "profile_id": s["profile_id"].to_numpy(),
            }
        )
        frame[HOUR_COLUMNS] = s[HOUR_COLUMNS].to_numpy() * scale[:, None]
        rows.append(frame)
    loads = pd.concat(rows, ignore_index=True)
    write_table(loads, job.output.loads)
    summary = {
        "feeder": feeder,
        "n_load_buses": len(buses),
        "base_load_mw": float(base_p.sum()),
        "scale_mw_per_kw_min": float(scale.min()),
        "scale_mw_per_kw_max": float(scale.max()),
        "scaling_rule": exp["scaling"],
        "class_counts": class_counts(true["cluster"], len(buses)),
        "load_rule": plausibility.as_dict(),
        "aggregate_mw": {n: loads[loads.profiles == n][HOUR_COLUMNS].sum().round(9).tolist() for n in sets},
    }
    write_json(summary, job.output.summary)
    _log_loads(feeder, buses, base_p, exp["scaling"], summary["aggregate_mw"], sample)


def snapshot_job(job) -> None:
    """Step 4 for one batch of hours of one profile set on one feeder (wildcards feeder, profiles, batch)."""
    from dpgrid.grid.feeders import load_feeder
    from dpgrid.grid.opf import run_hours

    hours = [int(h) for h in job.params.hours]
    net = load_feeder(job.input.net)
    loads = read_table(job.input.loads, dtype={"profile_id": str, "bus_name": str, "profiles": str})
    master = job.input.master if job.params.regulator_taps == "per_snapshot" else None
    volt, status = run_hours(
        net,
        loads,
        hours,
        opf_settings({"opf": dict(job.params.opf)}),
        feeder=job.wildcards.feeder,
        profiles=job.wildcards.profiles,
        regulator_master=master,
    )
    write_table(volt, job.output.voltages)
    write_table(status, job.output.status)


def collect_job(job) -> None:
    """Concatenate the batch outputs of one feeder (sorted by profile set, hour, bus)."""
    volt = pd.concat([read_table(p, dtype=VOLT_DTYPES) for p in job.input.voltages], ignore_index=True)
    status = pd.concat([read_table(p, dtype=VOLT_DTYPES) for p in job.input.status], ignore_index=True)
    volt = volt.sort_values(["profiles", "hour", "bus"], key=lambda s: s.map(set_order) if s.name == "profiles" else s)
    status = status.sort_values(["profiles", "hour"], key=lambda s: s.map(set_order) if s.name == "profiles" else s)
    write_table(volt.reset_index(drop=True), job.output.voltages)
    write_table(status.reset_index(drop=True), job.output.status)
    bad = status[~status.converged.astype(bool)]
    for r in bad.itertuples():
        LOG.warning("%s/%s hour %d: %s", r.feeder, r.profiles, r.hour, r.message)


def distances_job(job) -> None:
    """Table of W1 / KS distances (with bus-bootstrap intervals) and of the share outside the band."""
    from dpgrid.grid import voltage_stats

    st = job.params.stats
    dists, bands = [], []
    feeders = list(job.params.feeders)
    if len(feeders) != len(job.input.voltages) or len(feeders) != len(job.input.status):
        raise ValueError(f"distances: {len(feeders)} feeders but {len(job.input.voltages)} voltage tables")
    for feeder, vpath, spath in zip(feeders, job.input.voltages, job.input.status):
        volt = read_table(vpath, dtype=VOLT_DTYPES)
        status = read_table(spath, dtype=VOLT_DTYPES)

        def rng_for(*keys, _f=feeder):
            return job_rng(job.params.seed, "dpkmeans", job.params.seed_key, _f, *keys)

        d, b = voltage_stats.distance_tables(
            volt,
            status,
            feeder=feeder,
            n_resamples=st["n_bootstrap"],
            level=st["level"],
            band=tuple(st["report_band_pu"]),
            rng_for=rng_for,
        )
        dists.append(d)
        bands.append(b)
    write_table(pd.concat(dists, ignore_index=True), job.output.distances)
    write_table(pd.concat(bands, ignore_index=True), job.output.band)
