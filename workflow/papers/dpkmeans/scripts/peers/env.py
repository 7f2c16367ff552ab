from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans.peers import jobs

run_script(snakemake, jobs.env_job)  # noqa: F821
