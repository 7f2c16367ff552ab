"""Check a bring-your-own meter-data file without running the pipeline (README "Your own meter data").

Usage::

    python -m dpgrid.data.validate READINGS.csv [--meters METERS.csv] [--timezone ZONE] [--step-minutes N]
        [--start YYYY-MM-DD --days N] [--max-fill-intervals N] [--min-coverage F] [--plausible-kw LOW HIGH]
    python -m dpgrid.data.validate --config config/config.yaml --experiment dpkmeans

The file goes through exactly the loader the ``meter_data`` rule uses (:func:`dpgrid.data.csv_loader.load_csv`
rules): format, time zones, duplicates, step and grid, plausible range, and the gap rule over a window -
``[--start, --start + --days)`` if given, else the file's whole span. With ``--experiment`` every setting
comes from that entry of the config file (``data.experiments.<name>``, ``data.resample``,
``data.plausible_kw``); options given on the command line win. Prints a summary (meters, step, span, gaps
filled) and exits with status 0, or prints the error and exits with status 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from dpgrid.data.checks import DEFAULT_PLAUSIBLE_KW, step_text
from dpgrid.data.csv_loader import csv_pseudo_meters, csv_window
from dpgrid.data.csvfile import default_meters, read_meters_csv, read_readings_csv
from dpgrid.data.meter import meter_warnings
from dpgrid.data.problems import MeterDataError
from dpgrid.data.resample import window_bounds

DEFAULT_MIN_COVERAGE = 0.8
DEFAULT_MAX_FILL = 8


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m dpgrid.data.validate",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("readings", nargs="?", help="readings CSV (meter_id,timestamp,kw)")
    p.add_argument("--meters", help="meters CSV (meter_id,customer_class); default: every meter residential")
    p.add_argument(
        "--timezone",
        help="IANA time zone of the meters' clock, e.g. Europe/Paris (needed when the timestamps carry UTC offsets)",
    )
    p.add_argument("--step-minutes", type=int, help="the experiment's step (default: the file's step)")
    p.add_argument("--start", help="window start, a date YYYY-MM-DD (with --days; default: the file's span)")
    p.add_argument("--days", type=int, help="window length in days (with --start)")
    p.add_argument("--max-fill-intervals", type=int, help=f"longest gap filled (default {DEFAULT_MAX_FILL})")
    p.add_argument("--min-coverage", type=float, help=f"coverage of an interval (default {DEFAULT_MIN_COVERAGE})")
    p.add_argument(
        "--plausible-kw",
        type=float,
        nargs=2,
        metavar=("LOW", "HIGH"),
        help=f"plausible range of kw (default {DEFAULT_PLAUSIBLE_KW[0]:g} {DEFAULT_PLAUSIBLE_KW[1]:g})",
    )
    p.add_argument(
        "--pseudo-meters",
        type=int,
        help="cut N pseudo-meters from a file of one meter, as the config key pseudo_meters (needs --start/--days)",
    )
    p.add_argument("--config", help="a dpgrid config file (with --experiment)")
    p.add_argument("--experiment", help="take the settings of data.experiments.<EXPERIMENT> of --config")
    return p


def settings(args: argparse.Namespace) -> dict:
    """The check's settings: command line over the config entry (with --experiment) over the defaults."""
    s = {
        "readings": None,
        "meters": None,
        "timezone": None,
        "step_minutes": None,
        "start": None,
        "days": None,
        "max_fill_intervals": DEFAULT_MAX_FILL,
        "min_coverage": DEFAULT_MIN_COVERAGE,
        "plausible_kw": DEFAULT_PLAUSIBLE_KW,
        "pseudo_meters": None,
        "key": "data.experiments.<experiment>",
    }
    if args.experiment:
        import yaml

        cfg_path = Path(args.config or "config/config.yaml")
        if not cfg_path.is_file():
            raise MeterDataError(f"{cfg_path}: config file not found (--config)")
        data = (yaml.safe_load(cfg_path.read_text()) or {}).get("data", {})
        spec = data.get("experiments", {}).get(args.experiment)
        if spec is None:
            raise MeterDataError(f"{cfg_path}: no data.experiments.{args.experiment}")
        if spec.get("source") != "csv":
            raise MeterDataError(
                f"{cfg_path}: data.experiments.{args.experiment}.source is {spec.get('source')!r}; "
                f"this command checks csv sources"
            )
        keys = ("readings", "meters", "timezone", "step_minutes", "start", "days", "pseudo_meters")
        s.update({k: spec.get(k) for k in keys})
        s.update({k: data.get("resample", {}).get(k, s[k]) for k in ("max_fill_intervals", "min_coverage")})
        s["plausible_kw"] = tuple(data.get("plausible_kw", s["plausible_kw"]))
        s["key"] = f"data.experiments.{args.experiment}"
    elif args.config:
        raise MeterDataError("--config needs --experiment")
    for k in (
        "readings",
        "meters",
        "timezone",
        "step_minutes",
        "start",
        "days",
        "max_fill_intervals",
        "min_coverage",
        "plausible_kw",
        "pseudo_meters",
    ):
        v = getattr(args, k)
        if v is not None:
            s[k] = tuple(v) if k == "plausible_kw" else v
    if s["readings"] is None:
        raise MeterDataError("no readings file given (READINGS.csv or --config/--experiment)")
    if (s["start"] is None) != (s["days"] is None):
        raise MeterDataError("--start and --days go together")
    if s["pseudo_meters"] is not None and s["start"] is None:
        raise MeterDataError(
            f"{s['key']}.pseudo_meters (--pseudo-meters) cuts windows from --start: give --start and --days"
        )
    return s


def check(s: dict) -> str:
    """Run the loader's checks with settings ``s``; the summary text (raises :class:`MeterDataError`)."""
    r = read_readings_csv(s["readings"], timezone=s["timezone"], plausible_kw=s["plausible_kw"], key=s["key"])
    meters = read_meters_csv(s["meters"], r, s["key"]) if s["meters"] else default_meters(r)
    src = r.step
    step = pd.Timedelta(minutes=int(s["step_minutes"])) if s["step_minutes"] else src
    first, last = r.span()
    if s["start"] is not None:
        t0, t1 = window_bounds(s["start"], int(s["days"]))
    else:
        t0 = first.floor(step)
        t1 = (last + src).ceil(step)
    rule = {
        "min_coverage": float(s["min_coverage"]),
        "max_fill_intervals": int(s["max_fill_intervals"]),
        "key": s["key"],
    }
    pseudo = s["pseudo_meters"]
    if pseudo is not None:
        md, report = csv_pseudo_meters(r, meters, t0, int(s["days"]), step, int(pseudo), **rule)
    else:
        md, report = csv_window(r, meters, t0, t1, step, **rule)
    classes = md.meters["customer_class"].value_counts()
    # the intervals the clock skipped (DST start) are filled too, but reported once, on their own line
    filled = {m: n - report.clock_gap for m, n in report.filled.items() if n - report.clock_gap > 0}
    folded_ts = r.folded_ts if r.folded_ts is not None else np.empty(0, dtype=np.int64)
    in_window = (folded_ts >= t0.value) & (folded_ts < t1.value) if pseudo is None else np.ones(len(folded_ts), bool)
    folded = int(np.count_nonzero(in_window))
    kw = md.readings["kw"].to_numpy()
    raw = r.kw[~np.isnan(r.kw)]
    lo, hi = s["plausible_kw"]
    lines = [
        f"OK: {s['readings']}",
        (
            f"  meters:  {len(meters)} ({', '.join(f'{c} {n}' for c, n in meters['customer_class'].value_counts().items())}; "
            f"{'from ' + str(s['meters']) if s['meters'] else 'no meters file: all residential'})"
        ),
        *(
            [
                f"  pseudo:  {len(md.meters)} pseudo-meter(s) (windows of one home, not households: "
                f"{', '.join(classes.index)}) from {s['start']}"
                + (f"; window(s) skipped: {', '.join(report.skipped)}" if report.skipped else "")
            ]
            if pseudo is not None
            else []
        ),
        f"  rows:    {r.n_rows} readings ({int(np.isnan(r.kw).sum())} with an empty/NaN kw)",
        f"  step:    {step_text(src.value)} in the file; checked at {step_text(step.value)}",
        f"  span:    {first} .. {last} (local wall-clock time"
        + (f"; UTC offsets converted to {r.timezone}" if r.offsets else (f"; clock {r.timezone}" if r.timezone else ""))
        + ")",
        f"  window:  {t0} .. {t1}: {report.intervals} interval(s) per {'pseudo-meter' if pseudo is not None else 'meter'}"
        + ("" if s["start"] is not None else " (the file's span; --start/--days to check an experiment's window)"),
        (
            f"  gaps:    {sum(filled.values())} interval(s) filled by linear interpolation in {len(filled)} meter(s) "
            f"(runs of at most {s['max_fill_intervals']} missing intervals are filled)"
        ),
    ]
    if report.clock_gap or folded:
        lines.append(
            f"  DST:     {report.clock_gap} interval(s) per meter skipped by the clock filled; {folded} "
            f"reading(s) of the repeated hour averaged " + ("in the window" if pseudo is None else "in the file")
        )
    lines.append(
        f"  kw:      file {raw.min():g} .. {raw.max():g}, resampled mean {kw.mean():.4g} kW "
        f"(plausible range {lo:g} .. {hi:g} kW)"
    )
    lines += [f"WARNING: {w}" for w in meter_warnings(md)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        print(check(settings(args)))
    except MeterDataError as e:
        print(f"INVALID: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
