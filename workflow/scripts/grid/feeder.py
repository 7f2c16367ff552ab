from dpgrid.pipeline import run_script
from dpgrid.experiments.opf import feeder_job

run_script(snakemake, feeder_job)
