"""Applies the mutant named by DPGRID_MUTANT (tests/mutants/catalog.py) in every Python process started with this
folder on PYTHONPATH (run_mutant.py sets both for the scratch copy's Snakemake run and its jobs)."""

import os

if os.environ.get("DPGRID_MUTANT"):
    import catalog

    catalog.apply(os.environ["DPGRID_MUTANT"])
