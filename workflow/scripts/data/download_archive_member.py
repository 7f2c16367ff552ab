from dpgrid.pipeline import run_script
from dpgrid.experiments.data import download_archive_member_job

run_script(snakemake, download_archive_member_job)
