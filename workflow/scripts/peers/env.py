from dpgrid.experiments.peers import jobs
from dpgrid.pipeline import run_script

run_script(snakemake, jobs.env_job)  # noqa: F821
