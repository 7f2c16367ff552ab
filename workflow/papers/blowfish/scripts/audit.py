from dpgrid.core.pipeline import run_script
from dpgrid.papers.blowfish.stages import audit

run_script(snakemake, audit.audit_job)  # noqa: F821
