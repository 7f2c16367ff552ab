from dpgrid.experiments.dpkmeans import jobs
from dpgrid.pipeline import run_script

run_script(snakemake, jobs.gaussian_mixture_job)  # noqa: F821
