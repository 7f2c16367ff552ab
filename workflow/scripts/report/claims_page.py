from dpgrid.core.pipeline import run_script
from dpgrid.core.claims_page import claims_page_job

run_script(snakemake, claims_page_job)
