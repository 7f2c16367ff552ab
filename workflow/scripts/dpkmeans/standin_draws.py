from dpgrid.experiments.dpkmeans import jobs
from dpgrid.pipeline import run_script

run_script(snakemake, jobs.standin_draws_job)  # noqa: F821
