from dpgrid.core.pipeline import run_script
from dpgrid.papers.spdp.privacy_audit import privacy_audit_job

run_script(snakemake, privacy_audit_job)  # noqa: F821
