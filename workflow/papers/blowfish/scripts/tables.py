from dpgrid.core.pipeline import run_script
from dpgrid.papers.blowfish.stages import tables

run_script(snakemake, tables.tables_job)  # noqa: F821
