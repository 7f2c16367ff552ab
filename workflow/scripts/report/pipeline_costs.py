from dpgrid.pipeline import run_script
from dpgrid.costs import costs_job

run_script(snakemake, costs_job)
