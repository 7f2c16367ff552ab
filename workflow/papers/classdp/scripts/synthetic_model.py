from dpgrid.core.pipeline import run_script
from dpgrid.papers.classdp import jobs

run_script(snakemake, jobs.synthetic_model_job)  # noqa: F821
