from dpgrid.experiments.classdp import jobs
from dpgrid.pipeline import run_script

run_script(snakemake, jobs.similarity_sweep_data_job)  # noqa: F821
