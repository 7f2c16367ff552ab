from dpgrid.core.pipeline import run_script
from dpgrid.papers.blowfish.stages import runs

run_script(snakemake, runs.run_seed_job)  # noqa: F821
