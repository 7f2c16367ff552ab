from dpgrid.experiments.blowfish import jobs
from dpgrid.pipeline import run_script

run_script(snakemake, jobs.zero_sweep_job)  # noqa: F821
