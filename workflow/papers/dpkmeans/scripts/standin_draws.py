from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans.stages import fidelity

run_script(snakemake, fidelity.standin_draws_job)  # noqa: F821
