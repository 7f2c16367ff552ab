from dpgrid.core.pipeline import run_script
from dpgrid.data.download_jobs import download_archive_member_job

run_script(snakemake, download_archive_member_job)
