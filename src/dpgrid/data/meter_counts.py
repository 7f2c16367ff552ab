"""How many meters an experiment's data can hold, known before any job, and the refusal of a paper whose config
needs more.

A paper that clusters or samples meters needs a minimum number of them, set by its config (classdp: one meter per
cluster, ``classdp.forecast.n_clusters``; dpkmeans: more meters than ``dpkmeans.k`` and than the k-NN rules'
``n_neighbors``; the AC-OPF: one profile per load bus). The jobs check these minima too, but only after the meter
data are built; :func:`meter_minimum_problems` states them when the config is checked (``snakemake -n`` included),
so a run that cannot succeed starts no job.

The count is an upper bound of the meters the ``meter_data`` job keeps (windows of one home may be unusable, a
meter may fail its checks): a config refused here cannot run; one accepted may still stop in a job, with the
same key named. A count that cannot be known cheaply (a source this module does not know, a file that does not
exist or is malformed: the ``meter_data`` job reports it) is ``None`` and nothing is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

#: Rows read per chunk when counting the meters of a readings file.
COUNT_CHUNK_ROWS = 200_000


@dataclass(frozen=True)
class MeterNeed:
    """``key`` (dotted config key) = ``value`` needs at least ``minimum`` meters, because ``why``; ``remedy``: what
    else the user can do than give the data more meters (default: lower the key)."""

    key: str
    value: object
    minimum: int
    why: str
    remedy: str = ""


def csv_meter_count(path: str | Path, cap: int | None = None) -> int | None:
    """Distinct meter ids of a readings CSV (``meter_id,timestamp,kw``), reading only until ``cap`` are seen;
    ``None`` if the file is missing or does not parse (the ``meter_data`` job names the problem)."""
    import pandas as pd

    from dpgrid.data.csv_format import read_header
    from dpgrid.data.fields import READING_COLUMNS

    path = Path(path)
    if not path.is_file():
        return None
    try:
        names = read_header(path, tuple(READING_COLUMNS), "readings")
        seen: set[str] = set()
        reader = pd.read_csv(
            path,
            header=0,
            names=names,
            usecols=["meter_id"],
            dtype={"meter_id": str},
            keep_default_na=False,
            na_filter=False,
            chunksize=COUNT_CHUNK_ROWS,
            encoding="utf-8",
        )
        with reader:
            for chunk in reader:
                seen.update(x.strip() for x in chunk["meter_id"].unique() if x.strip())
                if cap is not None and len(seen) >= cap:
                    break
        return len(seen)
    except Exception:  # noqa: BLE001 - any problem of the file is the meter_data job's to report
        return None


def experiment_meter_count(spec: Mapping | None, cap: int | None = None) -> tuple[int | None, str]:
    """(upper bound of the meters of a ``data.experiments`` entry, where the number comes from); ``None`` when
    unknown. ``cap``: a csv file is read only until that many meters are seen."""
    if not spec:
        return None, ""
    source = spec.get("source")
    pseudo = spec.get("pseudo_meters")
    if source in ("csv", "uci_household") and pseudo:
        return int(pseudo), f"pseudo_meters = {pseudo}"
    if source == "uci_household":
        return 1, "source uci_household: one home (pseudo_meters: N cuts it into N windows)"
    if source == "uci_eld":
        return int(spec.get("n_meters") or 0), f"n_meters = {spec.get('n_meters')}"
    if source == "synthetic":
        n = int(spec.get("n_residential") or 0) + int(spec.get("n_commercial") or 0)
        return n, f"n_residential + n_commercial = {n}"
    if source == "csv" and spec.get("readings"):
        n = csv_meter_count(spec["readings"], cap)
        return n, f"readings {spec['readings']}" + (" (at least)" if cap is not None and n == cap else "")
    return None, ""


def meter_minimum_problems(config: Mapping, data_source_key: str, needs: list[MeterNeed]) -> list[str]:
    """One problem per need of ``needs`` that the experiment named by the config key ``data_source_key`` (dotted,
    e.g. ``dpkmeans.data_source``) cannot meet, naming the key, its value, the minimum and the data's count."""
    node: object = config
    for part in data_source_key.split("."):
        node = node.get(part) if isinstance(node, Mapping) else None
    experiments = (config.get("data") or {}).get("experiments") or {}
    if not isinstance(node, str) or node not in experiments or not needs:
        return []
    n, origin = experiment_meter_count(experiments[node], cap=max(need.minimum for need in needs))
    if n is None:
        return []
    return [
        f"{need.key} = {need.value!r} needs at least {need.minimum} meters ({need.why}), but the data of "
        f"{data_source_key} (data.experiments.{node}: {origin}) hold {n}: give data.experiments.{node} at "
        f"least {need.minimum} meters, or {need.remedy or 'lower ' + need.key}"
        for need in needs
        if n < need.minimum
    ]
