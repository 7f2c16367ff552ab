from dpgrid.core.pipeline import run_script
from dpgrid.papers.classdp.stages import similarity_sweep

run_script(snakemake, similarity_sweep.similarity_sweep_part_job)  # noqa: F821
