from dpgrid.core.pipeline import run_script
from dpgrid.papers.classdp import jobs

run_script(snakemake, jobs.forecast_arma_job)  # noqa: F821
