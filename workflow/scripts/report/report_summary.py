from dpgrid.core.pipeline import run_script
from dpgrid.core.report_pages import summary_job

run_script(snakemake, summary_job)
