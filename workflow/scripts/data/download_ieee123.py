from dpgrid.core.pipeline import run_script
from dpgrid.data.download_jobs import download_ieee123_job

run_script(snakemake, download_ieee123_job)
