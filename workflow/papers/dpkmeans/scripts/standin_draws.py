from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans import jobs

run_script(snakemake, jobs.standin_draws_job)  # noqa: F821
