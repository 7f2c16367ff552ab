from dpgrid.core.pipeline import run_script
from dpgrid.papers.classdp import jobs

run_script(snakemake, jobs.similarity_sweep_data_job)  # noqa: F821
