"""What the framework knows of the dpkmeans paper (:mod:`dpgrid.core.papers`): discovered by name, imported by
no job, so an edit here reruns nothing but the parse of the workflow."""

from __future__ import annotations

from dpgrid.core.papers import PaperDescriptor
from dpgrid.papers.dpkmeans.paper import PAPER

DESCRIPTOR = PaperDescriptor(
    name=PAPER,
    order=3,
    title="dpkmeans (Ravi et al.: DP k-means, synthetic profiles, AC-OPF)",
    experiments={
        "dpkmeans": "dpkmeans (DP k-means, synthetic data)",
        "grid": "dpkmeans AC-OPF (feeders, 123/141 bus)",
        "peers": "dpkmeans peers (the authors' code, diffprivlib; opt-in)",
    },
    data_sources={"dpkmeans_standin": "dpgrid.papers.dpkmeans.standin"},
)
