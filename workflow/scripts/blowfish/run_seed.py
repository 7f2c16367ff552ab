from dpgrid.pipeline import run_script
from dpgrid.experiments import blowfish

run_script(snakemake, blowfish.run_seed_job)
