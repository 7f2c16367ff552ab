"""One entry point for an experiment's meter data: :func:`load_experiment_data`.

``spec`` is an entry of ``config["data"]["experiments"]`` (schema: workflow/schemas/data.schema.yaml)::

    source: synthetic | uci_household | uci_eld | csv | a paper's stand-in (source_names())
    start: "2019-01-07"      # window start (a midnight)
    days: 56                 # window length
    step_minutes: 15         # the experiment's sampling step
    # synthetic: n_residential, n_commercial
    # a paper's stand-in: the keys its module's load_source reads (e.g. dpgrid.papers.spdp.standin)
    # uci_household: pseudo_meters (null: one meter UCI_HH; N: N windows of the record as pseudo-meters)
    # uci_eld:   n_meters
    # csv:       readings (path); optional: meters (path or null), timezone (IANA name or null),
    #            pseudo_meters (null; N: a one-meter file cut into N windows, as uci_household)

Real sources are averaged to the step with the coverage/gap rule of
:func:`dpgrid.data.resample.resample_to_step` (``config["data"]["resample"]``) and their values must
lie in ``config["data"]["plausible_kw"]``. Every source's readings pass
:func:`dpgrid.data.checks.validate_readings` and are checked to cover the window completely.
"""

from __future__ import annotations

import importlib
import logging
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd

from dpgrid.core.io import write_table
from dpgrid.data.checks import DEFAULT_PLAUSIBLE_KW, check_readings
from dpgrid.data.meter import MeterData, spec_value, spec_window, write_readings
from dpgrid.data.problems import MeterDataError

LOG = logging.getLogger(__name__)

#: Sources of the data layer: the generic synthetic population and the readers of real data. The papers add
#: their stand-ins (``data_sources`` of their descriptors, :mod:`dpgrid.core.papers`).
BUILTIN_SOURCES = ("synthetic", "uci_household", "uci_eld", "csv")
#: Files the download rules produce, per real source (relative to the working directory).
SOURCE_FILES = {
    "uci_household": "resources/downloads/uci_household/household_power_consumption.txt",
    "uci_eld": "resources/downloads/uci_eld/LD2011_2014.txt",
}


def source_names() -> tuple[str, ...]:
    """Every source an experiment may name: the built-in ones, then the papers' stand-ins."""
    from dpgrid.core.papers import data_source_modules

    return (*BUILTIN_SOURCES, *data_source_modules())


def source_module(source: str) -> str | None:
    """The module that implements a paper's stand-in source (``load_source(spec, rng, name)``), or None for a
    built-in source. Its code is what a meter-data job of that source runs besides this module's."""
    from dpgrid.core.papers import data_source_modules

    return data_source_modules().get(source)


def is_synthesised(source: str) -> bool:
    """Whether a source is synthesised from a field model (seeded; not resampled), not read from files: the
    generic ``synthetic`` population and every paper's stand-in."""
    return source == "synthetic" or source_module(source) is not None


def load_experiment_data(
    spec: dict,
    rng: np.random.Generator,
    *,
    resample: dict | None = None,
    input_path: str | Path | None = None,
    name: str = "<experiment>",
    plausible_kw=DEFAULT_PLAUSIBLE_KW,
    module: ModuleType | None = None,
) -> MeterData:
    """Meter data of one experiment.

    ``rng`` drives the synthetic model (unused by the real sources, which are deterministic).
    ``resample`` is ``config["data"]["resample"]`` (required for real sources); ``input_path`` the
    downloaded file for ``uci_household``/``uci_eld`` (default :data:`SOURCE_FILES`). ``name`` is the
    experiment's name, used in error messages. ``plausible_kw`` is ``config["data"]["plausible_kw"]``
    (real sources only: the synthetic model is not checked against it). ``module``: the module of a paper's
    stand-in source (default: :func:`source_module`); a paper's job that reads its own stand-in passes it, so
    the stand-in is in that job's code hash (an import statement, :mod:`dpgrid.core.provenance`).
    """
    source = spec.get("source")
    if source not in BUILTIN_SOURCES:
        registered = source_module(source)
        if registered is None:
            raise MeterDataError(
                f"config: data.experiments.{name}.source is {source!r}; expected one of {list(source_names())}"
            )
        if module is None:
            module = importlib.import_module(registered)
        elif module.__name__ != registered:
            raise MeterDataError(
                f"config: data.experiments.{name}.source is {source!r} (module {registered}); this job reads "
                f"{module.__name__} only"
            )
    start, days, step = spec_window(spec, name)
    if source == "synthetic":
        from dpgrid.data.synthetic import synthesize_meter_data

        md = synthesize_meter_data(
            int(spec_value(spec, "n_residential", name)),
            int(spec_value(spec, "n_commercial", name)),
            start,
            days,
            step,
            rng,
            source=f"synthetic:{name}",
        )
    elif source not in BUILTIN_SOURCES:
        md = module.load_source(spec, rng, name)
    else:
        if resample is None:
            raise MeterDataError(f"config: data.resample is needed for source {source!r}")
        kw = {
            "start": start,
            "days": days,
            "step_minutes": step,
            "min_coverage": float(resample["min_coverage"]),
            "max_fill_intervals": int(resample["max_fill_intervals"]),
            "plausible_kw": tuple(float(v) for v in plausible_kw),
        }
        if source == "uci_household":
            from dpgrid.data.uci_household import load_uci_household

            md, report = load_uci_household(
                input_path or SOURCE_FILES[source], pseudo_meters=spec_value(spec, "pseudo_meters", name), **kw
            )
        elif source == "uci_eld":
            from dpgrid.data.uci_eld import load_uci_eld

            md, report = load_uci_eld(
                input_path or SOURCE_FILES[source], n_meters=int(spec_value(spec, "n_meters", name)), **kw
            )
        else:
            from dpgrid.data.csv_loader import load_csv

            md, report = load_csv(
                spec_value(spec, "readings", name),
                spec.get("meters"),
                timezone=spec.get("timezone"),
                key=f"data.experiments.{name}",
                pseudo_meters=spec.get("pseudo_meters"),
                **kw,
            )
        LOG.info("%s (%s): %s", name, source, report.summary())
    check_window(md, start, days, step)
    return md


#: Cells (meters x samples) per block of the streamed synthetic source (:func:`write_experiment_data`): about
#: 16 MB per array of the household model, a few hundred MB at most in all, whatever the number of meters.
BLOCK_CELLS = 2_000_000


def write_experiment_data(
    spec: dict,
    rng: np.random.Generator,
    readings_path: str | Path,
    meters_path: str | Path,
    *,
    name: str = "<experiment>",
    block_cells: int = BLOCK_CELLS,
    **load_kw,
) -> dict:
    """Write an experiment's meter data (the files of :meth:`MeterData.save` of :func:`load_experiment_data`).

    The ``synthetic`` source is generated and written in blocks of about ``block_cells`` readings
    (:func:`dpgrid.data.synthetic.synthesize_meter_blocks`, :func:`dpgrid.data.meter.write_readings`), each
    block checked like the whole table (:func:`check_window`): peak memory does not grow with the number of
    meters and the bytes are those of the one-pass table. Other sources are loaded whole and saved.
    ``load_kw``: the other arguments of :func:`load_experiment_data`. Returns a summary for the job's log:
    ``n_meters``, ``n_readings``, ``step``, ``mean_kw_min``, ``mean_kw_max`` (mean load per meter).
    """
    if spec.get("source") != "synthetic":
        md = load_experiment_data(spec, rng, name=name, **load_kw)
        md.save(readings_path, meters_path)
        return _written_summary(len(md.meters), len(md.readings), md.step, md.readings.groupby("meter_id")["kw"].mean())
    from dpgrid.data.synthetic import readings_frame, synthesize_meter_blocks

    start, days, step = spec_window(spec, name)
    meters, timestamps, blocks = synthesize_meter_blocks(
        int(spec_value(spec, "n_residential", name)),
        int(spec_value(spec, "n_commercial", name)),
        start,
        days,
        step,
        rng,
        block=max(1, int(block_cells) // (days * (1440 // step))),
    )
    source = f"synthetic:{name}"
    means: list[np.ndarray] = []

    def parts():
        a = 0
        for ids, kw in blocks:
            frame = readings_frame(ids, kw, timestamps)
            check_window(MeterData(frame, meters.iloc[a : a + len(ids)], source), start, days, step)
            means.append(kw.mean(axis=1))
            a += len(ids)
            yield frame

    write_readings(readings_path, parts())
    write_table(meters, meters_path)
    return _written_summary(
        len(meters), len(meters) * len(timestamps), pd.Timedelta(minutes=step), np.concatenate(means)
    )


def _written_summary(n_meters: int, n_readings: int, step, mean_kw) -> dict:
    """The summary :func:`write_experiment_data` returns (``mean_kw``: the mean load of each meter)."""
    return {
        "n_meters": n_meters,
        "n_readings": n_readings,
        "step": step,
        "mean_kw_min": float(np.min(mean_kw)),
        "mean_kw_max": float(np.max(mean_kw)),
    }


def check_window(md: MeterData, start, days: int, step_minutes: int) -> None:
    """Every meter has exactly the readings of the window at the step (validated, complete)."""
    r = md.readings
    check_readings(r, md.source, min_samples=1)
    spd = 1440 // step_minutes
    expected = pd.date_range(pd.Timestamp(start), periods=days * spd, freq=pd.Timedelta(minutes=step_minutes))
    codes, names = pd.factorize(r["meter_id"].to_numpy(dtype=object))
    ts = r["timestamp"].to_numpy(dtype="datetime64[ns]").view(np.int64)
    size = np.bincount(codes, minlength=len(names))
    lo = _group_reduce(len(names), codes, ts, np.minimum)
    hi = _group_reduce(len(names), codes, ts, np.maximum)
    bad = np.flatnonzero((size != len(expected)) | (lo != expected[0].value) | (hi != expected[-1].value))
    if len(bad):
        k = bad[0]
        raise MeterDataError(
            f"{md.source}: meter {names[k]!r} has {size[k]} readings from {pd.Timestamp(int(lo[k]))} "
            f"to {pd.Timestamp(int(hi[k]))}; the window needs {len(expected)} from {expected[0]} to "
            f"{expected[-1]}"
        )


def _group_reduce(n_groups: int, codes: np.ndarray, values: np.ndarray, ufunc) -> np.ndarray:
    """``ufunc`` reduced over the values of each group code (0 for an empty group; not used: each
    meter of a readings table has a row)."""
    if len(codes) and not (codes[1:] >= codes[:-1]).all():
        order = np.argsort(codes, kind="stable")
        codes, values = codes[order], values[order]
    out = np.zeros(n_groups, dtype=values.dtype)
    if len(codes):
        starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
        out[codes[starts]] = ufunc.reduceat(values, starts)
    return out
