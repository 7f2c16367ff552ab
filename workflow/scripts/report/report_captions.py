from dpgrid.pipeline import run_script
from dpgrid.report_pages import captions_job

run_script(snakemake, captions_job)
