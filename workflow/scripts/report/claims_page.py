from dpgrid.core.claims_page import claims_page_job
from dpgrid.core.pipeline import run_script

run_script(snakemake, claims_page_job)
