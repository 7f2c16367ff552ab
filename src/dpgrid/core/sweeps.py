"""Swept config values as file-name labels (the values of Snakemake wildcards) and back.

A sweep (privacy budgets, accuracy budgets, clipping thresholds) runs one job per config entry;
the job's outputs and random stream are named by the entry's label ``f"{value:g}"`` (6
significant digits), and the job maps its wildcard back to the config entry. Used by the rules
files (workflow/rules/common.smk) and the experiments' job functions alike, so both sides agree.
"""

from __future__ import annotations

from collections.abc import Iterable


def sweep_label(value: float) -> str:
    """File-name label of a swept number (``0.68571`` -> ``"0.68571"``, ``1.0`` -> ``"1"``)."""
    return f"{float(value):g}"


def sweep_labels(values: Iterable[float], field: str) -> list[str]:
    """Labels of a swept config list, in order; distinct entries must have distinct labels."""
    values = list(values)
    labels = [sweep_label(v) for v in values]
    if len(set(labels)) != len(labels):
        raise ValueError(
            f"config: field {field} = {values!r}: entries share a file-name label {labels} "
            "(labels keep 6 significant digits; entries must differ in them)"
        )
    return labels


def swept_value(values: Iterable[float], wildcard: str, field: str, name: str) -> float:
    """The entry of config list ``field`` whose label is ``wildcard`` (wildcard ``name``); exactly one must match."""
    values = list(values)
    hits = [float(v) for v in values if sweep_label(v) == wildcard]
    if len(hits) != 1:
        raise ValueError(
            f"config: field {field} = {values!r} has {len(hits)} entries labelled {wildcard!r} "
            f"(wildcard {name}); expected exactly one"
        )
    return hits[0]


def batches(values: Iterable, size: int) -> list[list]:
    """``values`` cut into consecutive lists of ``size`` (the last may be shorter): one job each."""
    values = list(values)
    if size < 1:
        raise ValueError(f"batch size must be >= 1, got {size!r}")
    return [values[i : i + size] for i in range(0, len(values), size)]


def concat_sweep_points(paths, column: str, values, field: str):
    """The per-point tables of a sweep concatenated in sweep order (a merge rule's body).

    File ``i`` must hold rows of sweep value ``values[i]`` only (column ``column``), and there must be one
    file per value of config list ``field``: a table from another run of the sweep, or files passed in the
    wrong order, stop the merge with the file, field and values named.
    """
    import numpy as np
    import pandas as pd

    from dpgrid.core.io import read_table

    paths, values = list(paths), list(values)
    if len(paths) != len(values):
        raise ValueError(f"{len(paths)} per-point tables for {len(values)} values of config field {field}: {paths}")
    parts = []
    for path, v in zip(paths, values):
        part = read_table(path)
        if column not in part.columns or part.empty or not np.all(np.isclose(part[column], v, rtol=1e-10, atol=0.0)):
            got = sorted(set(part[column])) if column in part.columns else "no such column"
            raise ValueError(f"{path}: field {column!r} must be {v!r} in every row (config field {field}), got {got}")
        parts.append(part)
    return pd.concat(parts, ignore_index=True)
