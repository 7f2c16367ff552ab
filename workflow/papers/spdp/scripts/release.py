from dpgrid.core.pipeline import run_script
from dpgrid.papers.spdp.stages import release

run_script(snakemake, release.release_job)  # noqa: F821
