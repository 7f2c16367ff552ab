"""What the framework knows of the blowfish paper (:mod:`dpgrid.core.papers`): discovered by name, imported by
no job, so an edit here reruns nothing but the parse of the workflow."""

from __future__ import annotations

from dpgrid.core.papers import PaperDescriptor
from dpgrid.papers.blowfish.paper import PAPER


def _check_config(config) -> list[str]:
    """``blowfish.reference_seed`` must index one of the ``blowfish.seeds`` runs."""
    b = config.get(PAPER, {})
    if "reference_seed" in b and "seeds" in b and not 0 <= b["reference_seed"] < b["seeds"]:
        return [
            f"blowfish.reference_seed = {b['reference_seed']!r} must be a seed index below "
            f"blowfish.seeds = {b['seeds']!r}"
        ]
    return []


DESCRIPTOR = PaperDescriptor(
    name=PAPER,
    order=4,
    title="blowfish (GhoddousiBoroujeni et al.: private real-time pricing)",
    rules_files={"blowfish": "blowfish (pricing)"},
    check_config=_check_config,
    stages=("stages.runs", "stages.tables", "stages.zero_sweep", "stages.audit"),
    reference={
        "title": "Privacy of Real-Time Pricing in Smart Grid",
        "authors": [
            ("GhoddousiBoroujeni", "Mahrokh"),
            ("Fay", "Dominik"),
            ("Dimitrakakis", "Christos"),
            ("Kamgarpour", "Maryam"),
        ],
    },
    reproduces="Fig. 2 and the RMSRE comparison: Blowfish-private real-time pricing",
)
