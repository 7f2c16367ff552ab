from dpgrid.experiments import spdp
from dpgrid.pipeline import run_script

run_script(snakemake, spdp.fidelity_job)  # noqa: F821
