"""dpgrid: reproducible pipeline for four smart-grid differential-privacy papers.

The library is a stack of layers organised by concept, each importing only the layers below it
(docs/DEVELOPING.md, "Layers"; tests/workflow/test_layers.py), and one package per paper on top:

- :mod:`dpgrid.core`        the framework: atomic deterministic I/O, per-job random streams, config validation,
                            code provenance, the claims table, costs, the report pages, the papers' registry
- :mod:`dpgrid.figures`     one plotting style for every figure
- :mod:`dpgrid.privacy`     privacy accounting (delta(eps) computations, bounds, audits)
- :mod:`dpgrid.models`      signal / statistical models (ARMA, PSD, spectral factors, log-normal, occupancy)
- :mod:`dpgrid.mechanisms`  privacy mechanisms (Gaussian-class, spectral, K-means, Blowfish pricing, ...)
- :mod:`dpgrid.data`        meter-data sources: canonical form, validation, synthesis, downloads, loaders
- :mod:`dpgrid.grid`        distribution feeders and AC optimal power flow
- :mod:`dpgrid.papers`      one package per paper: its printed numbers, stand-in data, analyses, jobs, figures
                            and claims, called by the Snakemake scripts of ``workflow/papers/<paper>/``
"""

__version__ = "0.1.0"
