from dpgrid.core.pipeline import run_script
from dpgrid.core.report_pages import captions_job

run_script(snakemake, captions_job)
