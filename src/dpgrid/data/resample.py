"""The window of a real meter-data source and the resampling rule shared by every real source.

The loaders (:mod:`dpgrid.data.uci_household`, :mod:`dpgrid.data.uci_eld`, :mod:`dpgrid.data.csv_loader`) return
each a :class:`dpgrid.data.meter.MeterData` with complete readings on the window's grid
(:func:`dpgrid.data.sources.check_window` checks them again); errors name the file, the field, the rows
(line numbers of the file, header = line 1) and the values. Values outside ``plausible_kw`` (config
``data.plausible_kw``) are errors.

Resampling rule (:func:`resample_to_step`), the same for every real source
------------------------------------------------------------------------------
Source samples are averaged over each interval of the experiment's step. An interval is *kept* when
at least ``min_coverage`` of the source samples it should contain are present (non-missing);
otherwise it is missing. Runs of at most ``max_fill_intervals`` consecutive missing intervals are filled
by linear interpolation in time (at the ends of the window: nearest kept value); longer runs are an
error naming every such meter (capped), the first and last missing interval and the run's length.
Only the window ``[start, start + days)`` matters: data outside it is never looked at for gaps. When
the source's local clock skips an hour (daylight saving time starts, known from a CSV's ``timezone``),
the source samples of that hour do not exist: coverage counts only existing samples, and intervals with
no existing sample are filled by interpolation without counting against ``max_fill_intervals``. The
number of dropped and filled intervals is logged and returned.
"""

from __future__ import annotations

import logging
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from dpgrid.data.checks import step_text
from dpgrid.data.fields import METER_COLUMNS
from dpgrid.data.meter import MeterData
from dpgrid.data.problems import MeterDataError

LOG = logging.getLogger(__name__)


@dataclass
class ResampleReport:
    """What :func:`resample_to_step` did, per meter (counts of intervals)."""

    intervals: int
    dropped: dict  # meter -> intervals below min_coverage (before filling)
    filled: dict  # meter -> intervals filled by interpolation
    skipped: dict = field(default_factory=dict)  # UCI pseudo-meters: window id -> why it was not used
    clock_gap: int = 0  # intervals that do not exist on the local clock (DST start), filled, not counted

    def summary(self) -> str:
        nd, nf = sum(self.dropped.values()), sum(self.filled.values())
        out = (
            f"{len(self.dropped)} meter(s) x {self.intervals} interval(s): {nd} below coverage, "
            f"{nf} filled by interpolation"
        )
        if self.clock_gap:
            out += f"; {self.clock_gap} interval(s) per meter skipped by the clock (DST start) filled"
        if self.skipped:
            out += f"; {len(self.skipped)} window(s) skipped ({', '.join(self.skipped)})"
        return out


def window_bounds(start: str | pd.Timestamp, days: int) -> tuple[pd.Timestamp, pd.Timestamp]:
    """``[start, start + days)`` of an experiment's window; ``start`` must be a midnight."""
    start = pd.Timestamp(start)
    if start != start.normalize():
        raise ValueError(f"window start must be a midnight, got {start}")
    return start, start + pd.Timedelta(days=days)


def resample_to_step(
    wide: pd.DataFrame,
    source_step: pd.Timedelta,
    step: pd.Timedelta,
    start: pd.Timestamp,
    end: pd.Timestamp,
    *,
    min_coverage: float,
    max_fill_intervals: int,
    source: str,
    log_level: int = logging.INFO,
) -> tuple[pd.DataFrame, ResampleReport]:
    """Average a (timestamp x meter) frame of ``source_step`` samples (NaN = missing) to ``step``.

    Returns the complete (no NaN) frame on the grid ``[start, end)`` at ``step`` and a report.
    See the module docstring for the coverage and gap-filling rule.
    """
    if step < source_step or step % source_step != pd.Timedelta(0):
        raise MeterDataError(
            f"{source}: cannot resample {source_step} data to a step of {step} "
            f"(the step must be a multiple of the source step)"
        )
    fine = pd.date_range(start, end, freq=source_step, inclusive="left")
    vals = wide.reindex(fine).to_numpy(dtype=float)  # samples outside the source's range are missing
    return resample_values(
        vals,
        list(wide.columns),
        source_step,
        step,
        start,
        end,
        min_coverage=min_coverage,
        max_fill_intervals=max_fill_intervals,
        source=source,
        log_level=log_level,
    )


def resample_values(
    vals: np.ndarray,
    columns: list,
    source_step: pd.Timedelta,
    step: pd.Timedelta,
    start: pd.Timestamp,
    end: pd.Timestamp,
    *,
    min_coverage: float,
    max_fill_intervals: int,
    source: str,
    clock_skips: np.ndarray | None = None,
    dst_hint: str = "",
    log_level: int = logging.INFO,
) -> tuple[pd.DataFrame, ResampleReport]:
    """The resampling rule on an array: ``vals`` is (source samples of ``[start, end)`` x meters), NaN = missing.

    ``clock_skips`` marks source samples that do not exist on the local clock (the hour skipped when DST
    starts): they do not count as missing. ``dst_hint`` is appended to a gap error that spans exactly one
    hour (a CSV without a time zone). Raises :class:`MeterDataError` listing every meter with no usable
    data or a gap longer than ``max_fill_intervals`` (a few meters, then a count).
    """
    per = int(step / source_step)
    n_int = vals.shape[0] // per
    m = vals.shape[1]
    v = vals.reshape(n_int, per, m)
    count = np.isfinite(v).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, np.nansum(v, axis=1) / np.maximum(count, 1), np.nan)
    exist = np.full(n_int, per) if clock_skips is None else per - clock_skips.reshape(n_int, per).sum(axis=1)
    skipped = exist == 0  # intervals the local clock skips entirely
    keep = (count > 0) & (count >= min_coverage * exist[:, None] - 1e-9)
    mean[~keep] = np.nan
    index = pd.date_range(start, end, freq=step, inclusive="left")
    dropped, filled, empty, long_gaps = {}, {}, [], []
    x = np.arange(n_int)
    for j, meter in enumerate(columns):
        miss = ~keep[:, j]
        real = miss & ~skipped
        dropped[meter] = int(real.sum())
        filled[meter] = 0
        if not miss.any():
            continue
        if miss.all():
            empty.append(meter)
            continue
        d = np.diff(np.concatenate([[0], miss.astype(np.int8), [0]]))
        run_starts, run_ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
        creal = np.concatenate([[0], np.cumsum(real)])
        lengths = creal[run_ends] - creal[run_starts]  # missing intervals that exist on the clock
        if lengths.max() > max_fill_intervals:
            k = int(np.argmax(lengths))
            long_gaps.append(
                (
                    meter,
                    int(lengths[k]),
                    index[run_starts[k]],
                    index[run_ends[k] - 1],
                    int((lengths > max_fill_intervals).sum()),
                )
            )
            continue
        col = mean[:, j]
        col[miss] = np.interp(x[miss], x[~miss], col[~miss])
        filled[meter] = int(miss.sum())
    lines = []
    if empty:
        shown = ", ".join(repr(mt) for mt in empty[:5]) + (f" and {len(empty) - 5} more" if len(empty) > 5 else "")
        lines.append(
            f"{source}: meter(s) {shown} have no data in the window {start} .. {end} (no interval of "
            f"{step_text(step.value)} with {min_coverage:.0%} of its readings present)"
        )
    for meter, length, first, last, n_long in long_gaps[:5]:
        hint = dst_hint if dst_hint and length * step == pd.Timedelta(hours=1) else ""
        more = f" (and {n_long - 1} more gap(s) over the limit)" if n_long > 1 else ""
        lines.append(
            f"{source}: meter {meter!r} has a gap of {length} interval(s) of {step_text(step.value)} in the "
            f"window: first missing {first}, last missing {last}{more}{hint}"
        )
    if len(long_gaps) > 5:
        lines.append(f"{source}: and {len(long_gaps) - 5} more meter(s) with gaps over the limit")
    if lines:
        tail = ""
        if long_gaps:
            tail = (
                f"; an interval is missing when fewer than {min_coverage:.0%} of its readings are present, and "
                f"runs of at most {max_fill_intervals} missing intervals are filled (data.resample."
                f"max_fill_intervals): choose another window, fill the gap in the data or raise the limit"
            )
        raise MeterDataError("\n".join(lines) + tail)
    out = pd.DataFrame(mean, index=index, columns=columns)
    report = ResampleReport(n_int, dropped, filled, clock_gap=int(skipped.sum()))
    LOG.log(log_level, "%s: resampled %s -> %s: %s", source, source_step, step, report.summary())
    return out, report


def wide_to_meterdata(wide: pd.DataFrame, meters: pd.DataFrame, source: str, min_samples: int = 2) -> MeterData:
    """Canonical readings from a complete (timestamp x meter) frame: sorted by meter id, then time."""
    if wide.isna().to_numpy().any() or len(wide) < min_samples:
        raise AssertionError(f"{source}: resampled frame is incomplete")  # guaranteed by resample_values
    names = np.asarray(list(wide.columns), dtype=object)
    order = np.argsort(names, kind="stable")
    n = len(wide)
    readings = pd.DataFrame(
        {
            "meter_id": np.repeat(names[order], n),
            "timestamp": np.tile(wide.index.to_numpy(dtype="datetime64[ns]"), len(names)),
            "kw": np.ascontiguousarray(wide.to_numpy(dtype="float64").T[order]).ravel(),
        },
        copy=False,
    )
    return MeterData(readings, meters[METER_COLUMNS].reset_index(drop=True), source)


def open_source_text(path: Path, member: str | None):
    """A text stream of ``path`` (a text file, or ``member`` of a zip archive)."""
    if path.suffix.lower() == ".zip":
        zf = zipfile.ZipFile(path)
        names = zf.namelist()
        name = (
            member
            if member in names
            else next((n for n in names if n.lower().endswith(".txt") and not n.startswith("__MACOSX")), None)
        )
        if name is None:
            raise MeterDataError(f"{path}: archive holds no {member or '.txt'} file (members: {names[:5]})")
        return zf.open(name)
    return open(path, "rb")
