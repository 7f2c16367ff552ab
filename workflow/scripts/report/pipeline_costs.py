from dpgrid.core.costs import costs_job
from dpgrid.core.pipeline import run_script

run_script(snakemake, costs_job)
