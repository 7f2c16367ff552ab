"""What the framework knows of the dpkmeans paper (:mod:`dpgrid.core.papers`): discovered by name, imported by
no job, so an edit here reruns nothing but the parse of the workflow."""

from __future__ import annotations

from dpgrid.core.papers import PaperDescriptor
from dpgrid.data.meter_counts import MeterNeed, meter_minimum_problems
from dpgrid.papers.dpkmeans.paper import PAPER


def meter_problems(config) -> list[str]:
    """The meter data hold more meters than ``dpkmeans.k`` (:mod:`dpgrid.data.meter_counts`): checked by the input
    function of rule dpkmeans_clustering, so a plan holding that job stops before any job (the AC-OPF's minimum:
    :mod:`dpgrid.papers.dpkmeans.opf.minimum`)."""
    k = config.get(PAPER, {}).get("k")
    if not isinstance(k, int):
        return []
    need = MeterNeed(f"{PAPER}.k", k, k + 1, "k-means with k clusters needs more meters than k")
    return meter_minimum_problems(config, f"{PAPER}.data_source", [need])


DESCRIPTOR = PaperDescriptor(
    name=PAPER,
    order=3,
    title="dpkmeans (Ravi et al.: DP k-means, synthetic profiles, AC-OPF)",
    rules_files={
        "dpkmeans": "dpkmeans (DP k-means, synthetic data)",
        "grid": "dpkmeans AC-OPF (feeders, 123/141 bus)",
        "peers": "dpkmeans peers (the authors' code, diffprivlib; opt-in)",
    },
    data_sources={"dpkmeans_standin": "dpgrid.papers.dpkmeans.standin"},
    stages=(
        "stages.synthetic",
        "stages.clustering",
        "stages.release",
        "stages.bic",
        "stages.gaussian_mixture",
        "stages.profiles",
        "stages.mds",
        "stages.fig9",
        "stages.fidelity",
        "stages.pitfall",
        "stages.audit",
        "opf.stages",
        "peers.stages",
    ),
    reference={
        "title": "Differentially Private K-means Clustering Applied to Meter Data Analysis and Synthesis",
        "journal": "IEEE Transactions on Smart Grid",
        "volume": 13,
        "issue": 6,
        "year": 2022,
        "doi": "10.1109/TSG.2022.3184252",
        "authors": [
            ("Ravi", "Nikhil"),
            ("Scaglione", "Anna"),
            ("Kadam", "Sachin"),
            ("Gentz", "Reinhard"),
            ("Peisert", "Sean"),
            ("Lunghino", "Brent"),
            ("Levijarvi", "Emmanuel"),
            ("Shumavon", "Aram"),
        ],
    },
    reproduces="Figs. 3, 5-13: DP K-means, DP synthetic load profiles, AC-OPF voltage checks on the IEEE 123-node and 141-bus feeders",
)
