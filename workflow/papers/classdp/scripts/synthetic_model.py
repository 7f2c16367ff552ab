from dpgrid.core.pipeline import run_script
from dpgrid.papers.classdp.stages import synthetic_model

run_script(snakemake, synthetic_model.synthetic_model_job)  # noqa: F821
