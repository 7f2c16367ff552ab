from dpgrid.experiments.blowfish import jobs
from dpgrid.pipeline import run_script

run_script(snakemake, jobs.run_seed_job)  # noqa: F821
