from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans import jobs

run_script(snakemake, jobs.fidelity_job)  # noqa: F821
