from dpgrid.pipeline import run_script
from dpgrid.experiments.data import download_ieee123_job

run_script(snakemake, download_ieee123_job)
