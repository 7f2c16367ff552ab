from dpgrid.pipeline import run_script
from dpgrid.report_pages import claims_page_job

run_script(snakemake, claims_page_job)
