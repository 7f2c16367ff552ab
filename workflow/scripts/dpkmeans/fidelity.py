from dpgrid.experiments.dpkmeans import jobs
from dpgrid.pipeline import run_script

run_script(snakemake, jobs.fidelity_job)  # noqa: F821
