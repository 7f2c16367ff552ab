from dpgrid.pipeline import run_script
from dpgrid.experiments.opf import distances_job

run_script(snakemake, distances_job)
