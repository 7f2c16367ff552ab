from dpgrid.core.pipeline import run_script
from dpgrid.papers.spdp.stages import fidelity

run_script(snakemake, fidelity.fidelity_job)  # noqa: F821
