"""The fields of meter readings: column names, ISO 8601 timestamps, meter ids, time-zone names.

Readings have the columns :data:`READING_COLUMNS` (``meter_id``, ``timestamp``, ``kw``), meters
:data:`METER_COLUMNS` (``meter_id``, ``customer_class``); the canonical table is
:class:`dpgrid.data.meter.MeterData`. Each distinct timestamp text or meter id is parsed once.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pandas as pd

from dpgrid.data.problems import SEE_README, MeterDataError

READING_COLUMNS = ["meter_id", "timestamp", "kw"]
METER_COLUMNS = ["meter_id", "customer_class"]

# kinds of a parsed timestamp (parse_timestamps)
TS_NAIVE, TS_OFFSET, TS_BAD, TS_EMPTY = 0, 1, -1, -2
_EPOCH = datetime(1970, 1, 1)
_NS_MIN_YEAR, _NS_MAX_YEAR = 1678, 2261  # datetime64[ns] range, whole years


def parse_timestamps(values) -> tuple[np.ndarray, np.ndarray]:
    """ISO 8601 date-times -> (int64 nanoseconds, kind) per value.

    Each distinct text is parsed once (:meth:`datetime.fromisoformat`, Python 3.11: ``T`` or space
    between date and time, optional seconds and fractions, optional ``Z`` / ``+hh:mm`` / ``+hhmm`` /
    ``+hh`` offset). kind is :data:`TS_NAIVE` (nanoseconds since 1970-01-01 of the wall-clock time),
    :data:`TS_OFFSET` (the text carries a UTC offset: nanoseconds of the UTC instant),
    :data:`TS_BAD` (not an ISO 8601 date-time, or outside 1678..2261) or :data:`TS_EMPTY`.
    """
    codes, uniques = pd.factorize(np.asarray(values, dtype=object), use_na_sentinel=True)
    u_ns, u_kind = parse_timestamp_texts(uniques)
    return u_ns[codes], u_kind[codes]


def parse_timestamp_texts(texts) -> tuple[np.ndarray, np.ndarray]:
    """:func:`parse_timestamps` of distinct texts; one extra last slot (missing: :data:`TS_EMPTY`) so that
    the results can be indexed with codes where -1 means missing."""
    u_ns = np.zeros(len(texts) + 1, dtype=np.int64)
    u_kind = np.full(len(texts) + 1, TS_BAD, dtype=np.int8)
    u_kind[-1] = TS_EMPTY
    for i, s in enumerate(texts):
        s = str(s).strip()
        if not s:
            u_kind[i] = TS_EMPTY
            continue
        try:
            d = datetime.fromisoformat(s)
        except ValueError:
            continue
        kind = TS_NAIVE
        if d.tzinfo is not None:
            d = d.astimezone(UTC).replace(tzinfo=None)
            kind = TS_OFFSET
        if not _NS_MIN_YEAR <= d.year <= _NS_MAX_YEAR:
            continue
        td = d - _EPOCH
        u_ns[i] = ((td.days * 86400 + td.seconds) * 1_000_000 + td.microseconds) * 1000
        u_kind[i] = kind
    return u_ns, u_kind


#: First characters that make a spreadsheet (Excel, LibreOffice, Google Sheets) read a cell as a formula
#: (OWASP's CSV injection list). A meter id is the first cell of the result tables a person opens, so ids
#: beginning with one of them are refused at load (:func:`formula_like_ids`); a leading '-' is refused too: a
#: spreadsheet computes ``-2+3`` and shows ``-42`` as a number, so such an id would not survive one opening.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "\n")


def formula_like_ids(names) -> np.ndarray:
    """Positions of the meter ids (already stripped of blanks) that begin with one of :data:`FORMULA_PREFIXES`."""
    return np.array([i for i, n in enumerate(names) if str(n).startswith(FORMULA_PREFIXES)], dtype=np.int64)


FORMULA_ID_TEXT = (
    "field 'meter_id' begins with = + - @ (a spreadsheet opening a result table would run it as a formula)"
)
FORMULA_ID_HINT = (
    "rename the meter so that its id begins with another character, e.g. a letter (docs/data.md, Meter ids)"
)


def clean_meter_ids(values) -> tuple[np.ndarray, np.ndarray]:
    """Meter ids -> (int codes, names): names stripped of blanks, in order of first appearance;
    code -1 for a missing or blank id."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=object), use_na_sentinel=True)
    return clean_coded_ids(codes, uniques)


def clean_coded_ids(codes: np.ndarray, uniques) -> tuple[np.ndarray, np.ndarray]:
    """:func:`clean_meter_ids` of already coded ids (``uniques[codes]``, -1 = missing); the names keep
    the order of ``uniques`` (blank ones dropped, duplicates after stripping merged)."""
    stripped = pd.Index(uniques, dtype=object).astype(str).str.strip()
    c2, names = pd.factorize(stripped)
    lut = np.append(c2, -1).astype(np.int64)
    codes = lut[np.asarray(codes, dtype=np.int64)]
    names = np.asarray(names, dtype=object)
    blank = np.flatnonzero(names == "")
    if len(blank):  # a blank id is missing; renumber the others
        keep = names != ""
        remap = np.full(len(names) + 1, -1, dtype=np.int64)
        remap[np.flatnonzero(keep)] = np.arange(keep.sum())
        codes = remap[codes]
        names = names[keep]
    return codes, names


def zone_or_error(name: str | None, where: str):
    """A :class:`zoneinfo.ZoneInfo` for an IANA time-zone name (``None`` stays ``None``)."""
    if name is None:
        return None
    import zoneinfo

    try:
        return zoneinfo.ZoneInfo(str(name))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as e:
        raise MeterDataError(
            f"{where}: unknown time zone {name!r}; use an IANA name such as 'Europe/Paris' or 'UTC' ({SEE_README})"
        ) from e
