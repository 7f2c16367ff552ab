"""dpgrid: reproducible pipeline for four smart-grid differential-privacy papers.

The package is organised by concept, not by paper:

- :mod:`dpgrid.privacy`     privacy accounting (delta(eps) computations, bounds)
- :mod:`dpgrid.mechanisms`  privacy mechanisms (Gaussian-class, spectral, K-means, Blowfish, ...)
- :mod:`dpgrid.models`      signal / statistical models (ARMA, PSD, spectral factors, log-normal, occupancy)
- :mod:`dpgrid.data`        meter-data sources: canonical form, validation, synthesis, downloads, loaders
- :mod:`dpgrid.grid`        distribution feeders and AC optimal power flow
- :mod:`dpgrid.figures`     one plotting style for every figure
- :mod:`dpgrid.papers` per-paper compositions of the above, called by the Snakemake scripts

Infrastructure shared by everything: :mod:`dpgrid.core.io` (atomic, deterministic writes),
:mod:`dpgrid.core.seeds` (per-job random streams), :mod:`dpgrid.core.claims` (the claims table),
:mod:`dpgrid.core.provenance` (source hashes that make Snakemake rerun after code edits).
"""

__version__ = "0.1.0"
