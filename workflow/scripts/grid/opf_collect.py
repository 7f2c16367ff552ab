from dpgrid.pipeline import run_script
from dpgrid.experiments.opf import collect_job

run_script(snakemake, collect_job)
