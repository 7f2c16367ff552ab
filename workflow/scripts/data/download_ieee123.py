from dpgrid.experiments.data import download_ieee123_job
from dpgrid.pipeline import run_script

run_script(snakemake, download_ieee123_job)
