"""What the framework knows of the classdp paper (:mod:`dpgrid.core.papers`): discovered by name, imported by
no job, so an edit here reruns nothing but the parse of the workflow."""

from __future__ import annotations

from dpgrid.core.papers import PaperDescriptor
from dpgrid.data.meter_counts import MeterNeed, meter_minimum_problems
from dpgrid.papers.classdp.paper import PAPER, STANDIN_SOURCE


def _check_config(config) -> list[str]:
    """``fig3_rho`` / ``contour_rho`` must be among their setting's ``rhos`` (the figure reads that job's curve)."""
    problems = []
    for setting, key in (("synthetic", "contour_rho"), ("forecast", "fig3_rho")):
        sc = config.get(PAPER, {}).get(setting, {})
        if key in sc and sc[key] not in sc.get("rhos", []):
            problems.append(
                f"classdp.{setting}.{key} = {sc[key]!r} must be one of classdp.{setting}.rhos = {sc['rhos']!r}"
            )
    return problems


def meter_problems(config) -> list[str]:
    """The forecast's data hold more meters than ``classdp.forecast.n_clusters`` (:mod:`dpgrid.data.meter_counts`):
    checked by the input function of rule classdp_forecast_model, so a plan holding that job stops before any job."""
    fc = config.get(PAPER, {}).get("forecast", {})
    if not isinstance(fc.get("n_clusters"), int):
        return []
    need = MeterNeed(
        "classdp.forecast.n_clusters",
        fc["n_clusters"],
        fc["n_clusters"] + 1,
        "one meter per k-means cluster and a cluster of two: the class mechanism's neighbours are meters of one "
        "cluster",
    )
    return meter_minimum_problems(config, "classdp.forecast.data_source", [need])


DESCRIPTOR = PaperDescriptor(
    name=PAPER,
    order=1,
    title="classdp (Ramakrishna et al.: class-based Gaussian mechanism)",
    rules_files={"classdp": "classdp (Gaussian class mechanism)"},
    data_sources={STANDIN_SOURCE: "dpgrid.papers.classdp.standin"},
    check_config=_check_config,
    stages=(
        "stages.synthetic_model",
        "stages.release_analysis",
        "stages.forecast_model",
        "stages.forecast_release",
        "stages.similarity_sweep",
    ),
    reference={
        "title": "Differential Privacy for Class-based Data: A Practical Gaussian Mechanism",
        "authors": [
            ("Ramakrishna", "Raksha"),
            ("Scaglione", "Anna"),
            ("Wu", "Tong"),
            ("Ravi", "Nikhil"),
            ("Peisert", "Sean"),
        ],
    },
    reproduces="Figs. 1-4: class-based Gaussian mechanism, exact (eps, delta) curves, DP ARMA load forecasts",
)
