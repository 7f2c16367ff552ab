from dpgrid.pipeline import run_script
from dpgrid.experiments.opf import snapshot_job

run_script(snakemake, snapshot_job)
