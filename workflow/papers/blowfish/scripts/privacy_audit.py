from dpgrid.core.pipeline import run_script
from dpgrid.papers.blowfish.privacy_audit import privacy_audit_job

run_script(snakemake, privacy_audit_job)  # noqa: F821
