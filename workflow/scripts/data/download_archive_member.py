from dpgrid.experiments.data import download_archive_member_job
from dpgrid.pipeline import run_script

run_script(snakemake, download_archive_member_job)
