"""One entry point for an experiment's meter data: :func:`load_experiment_data`.

``spec`` is an entry of ``config["data"]["experiments"]`` (schema: workflow/schemas/data.schema.yaml)::

    source: synthetic | dpkmeans_standin | uci_household | uci_eld | csv
    start: "2019-01-07"      # window start (a midnight)
    days: 56                 # window length
    step_minutes: 15         # the experiment's sampling step
    # synthetic: n_residential, n_commercial
    # dpkmeans_standin: n_residential, n_commercial, small_clusters, separation (dpgrid.data.dpkmeans_standin)
    # uci_household: pseudo_meters (null: one meter UCI_HH; N: N windows of the record as pseudo-meters)
    # uci_eld:   n_meters
    # csv:       readings (path), meters (path or null)

Real sources are averaged to the step with the coverage/gap rule of
:func:`dpgrid.data.loaders.resample_to_step` (``config["data"]["resample"]``). Every source's readings
pass :func:`dpgrid.data.meter.validate_readings` and are checked to cover the window completely.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd

from dpgrid.data.meter import MeterData, MeterDataError, validate_readings

LOG = logging.getLogger(__name__)

SOURCES = ("synthetic", "dpkmeans_standin", "uci_household", "uci_eld", "csv")
#: Sources generated from a seeded random stream (the data rule passes them the seed; no resampling).
GENERATED_SOURCES = ("synthetic", "dpkmeans_standin")
#: Files the download rules produce, per real source (relative to the working directory).
SOURCE_FILES = {
    "uci_household": "resources/downloads/uci_household/household_power_consumption.txt",
    "uci_eld": "resources/downloads/uci_eld/LD2011_2014.txt",
}


def _get(spec: dict, key: str, name: str):
    if key not in spec:
        raise MeterDataError(f"config: data.experiments.{name}: missing key {key!r} for source {spec.get('source')!r}")
    return spec[key]


def load_experiment_data(
    spec: dict,
    rng: np.random.Generator,
    *,
    resample: dict | None = None,
    input_path: str | Path | None = None,
    name: str = "<experiment>",
) -> MeterData:
    """Meter data of one experiment.

    ``rng`` drives the synthetic model (unused by the real sources, which are deterministic).
    ``resample`` is ``config["data"]["resample"]`` (required for real sources); ``input_path`` the
    downloaded file for ``uci_household``/``uci_eld`` (default :data:`SOURCE_FILES`). ``name`` is the
    experiment's name, used in error messages.
    """
    source = spec.get("source")
    if source not in SOURCES:
        raise MeterDataError(f"config: data.experiments.{name}.source is {source!r}; expected one of {list(SOURCES)}")
    start, days, step = _get(spec, "start", name), int(_get(spec, "days", name)), int(_get(spec, "step_minutes", name))
    if source == "synthetic":
        from dpgrid.data.synthetic import synthesize_meter_data

        md = synthesize_meter_data(int(_get(spec, "n_residential", name)), int(_get(spec, "n_commercial", name)),
                                   start, days, step, rng, source=f"synthetic:{name}")
    elif source == "dpkmeans_standin":
        from dpgrid.data.dpkmeans_standin import synthesize_dpkmeans_standin

        md = synthesize_dpkmeans_standin(int(_get(spec, "n_residential", name)), int(_get(spec, "n_commercial", name)),
                                         list(_get(spec, "small_clusters", name)),
                                         float(_get(spec, "separation", name)), start, days, step, rng,
                                         source=f"dpkmeans_standin:{name}")
    else:
        if resample is None:
            raise MeterDataError(f"config: data.resample is needed for source {source!r}")
        kw = dict(start=start, days=days, step_minutes=step, min_coverage=float(resample["min_coverage"]),
                  max_fill_intervals=int(resample["max_fill_intervals"]))
        from dpgrid.data import loaders

        if source == "uci_household":
            md, report = loaders.load_uci_household(input_path or SOURCE_FILES[source],
                                                    pseudo_meters=_get(spec, "pseudo_meters", name), **kw)
        elif source == "uci_eld":
            md, report = loaders.load_uci_eld(input_path or SOURCE_FILES[source], n_meters=int(_get(spec, "n_meters", name)), **kw)
        else:
            md, report = loaders.load_csv(_get(spec, "readings", name), spec.get("meters"), **kw)
        LOG.info("%s (%s): %s", name, source, report.summary())
    check_window(md, start, days, step)
    return md


def check_window(md: MeterData, start, days: int, step_minutes: int) -> None:
    """Every meter has exactly the readings of the window at the step (validated, complete)."""
    validate_readings(md.readings, md.source, min_samples=1)
    spd = 1440 // step_minutes
    expected = pd.date_range(pd.Timestamp(start), periods=days * spd, freq=pd.Timedelta(minutes=step_minutes))
    counts = md.readings.groupby("meter_id", sort=False)["timestamp"].agg(["size", "min", "max"])
    bad = counts[(counts["size"] != len(expected)) | (counts["min"] != expected[0]) | (counts["max"] != expected[-1])]
    if len(bad):
        m = bad.index[0]
        raise MeterDataError(f"{md.source}: meter {m!r} has {bad.loc[m, 'size']} readings from {bad.loc[m, 'min']} "
                             f"to {bad.loc[m, 'max']}; the window needs {len(expected)} from {expected[0]} to {expected[-1]}")
