from dpgrid.pipeline import run_script
from dpgrid.report_pages import summary_job

run_script(snakemake, summary_job)
