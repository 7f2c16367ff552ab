from dpgrid.core.pipeline import run_script
from dpgrid.papers.classdp.stages import release_analysis

run_script(snakemake, release_analysis.collect_tables_job)  # noqa: F821
