from dpgrid.experiments.dpkmeans import jobs
from dpgrid.pipeline import run_script

run_script(snakemake, jobs.synthetic_sweep_job)  # noqa: F821
