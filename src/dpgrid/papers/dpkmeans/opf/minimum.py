"""The AC-OPF's minimum of household profiles, checked when Snakemake builds its plan (before any job, ``-n`` too).

The OPF places one household's profile on each load bus without replacement (paper Sec. V-B, step 1;
:func:`dpgrid.papers.dpkmeans.opf.stages.check_profiles_per_bus` checks it again in the job, on the profiles left after
the outlier rule). A plan that holds a feeder's OPF (the input function of rule ``dpkmeans_opf_loads``,
workflow/papers/dpkmeans/common.smk) while the dpkmeans data hold fewer meters than that feeder's load buses
(``grid.experiment.load_buses``) is refused; targets without the OPF still run.
"""

from __future__ import annotations

from collections.abc import Mapping

from dpgrid.data.meter_counts import MeterNeed, meter_minimum_problems
from dpgrid.grid.feeders import LOAD_BUS_COUNTS


def opf_meter_problems(config: Mapping, feeder: str) -> list[str]:
    """The OPF's need of profiles on ``feeder`` (one per load bus) that the dpkmeans data cannot meet, as config
    problems naming the keys and the minimum."""
    rule = (config.get("grid") or {}).get("experiment", {}).get("load_buses")
    n_buses = LOAD_BUS_COUNTS.get(feeder, {}).get(rule)
    if n_buses is None:
        return []
    need = MeterNeed(
        "grid.experiment.load_buses",
        rule,
        n_buses,
        f"one household profile per load bus of the {feeder} feeder, drawn without replacement by its AC-OPF",
        "request only targets without the OPF (e.g. results/dpkmeans/claims.csv; the default target's claims "
        "include the OPF's, Figs. 12-13)",
    )
    return meter_minimum_problems(config, "dpkmeans.data_source", [need])
