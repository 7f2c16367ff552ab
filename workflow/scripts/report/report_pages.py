from dpgrid.pipeline import run_script
from dpgrid.report_pages import report_pages_job

run_script(snakemake, report_pages_job)
