from dpgrid.experiments.dpkmeans import jobs
from dpgrid.pipeline import run_script

run_script(snakemake, jobs.mds_job)  # noqa: F821
