from dpgrid.pipeline import run_script
from dpgrid.experiments import blowfish

run_script(snakemake, blowfish.zero_sweep_threshold_job)
