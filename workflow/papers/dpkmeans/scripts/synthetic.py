from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans.stages import synthetic

run_script(snakemake, synthetic.synthetic_job)  # noqa: F821
