from dpgrid.costs import costs_job
from dpgrid.pipeline import run_script

run_script(snakemake, costs_job)
