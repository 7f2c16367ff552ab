from dpgrid.experiments.blowfish import jobs
from dpgrid.pipeline import run_script

run_script(snakemake, jobs.audit_job)  # noqa: F821
