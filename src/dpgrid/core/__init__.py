"""The framework every layer above uses: atomic deterministic I/O, per-job random streams, sweeps, config
loading and validation, code provenance, the claims table, costs and the report pages. Imports nothing of
dpgrid outside ``dpgrid.core``."""
