from dpgrid.core.pipeline import run_script
from dpgrid.privacy.audit_table import collect_job

run_script(snakemake, collect_job)  # noqa: F821
