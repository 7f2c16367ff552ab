"""spdp's stages: the rule bodies of workflow/papers/spdp/spdp.smk that compute, one module per stage (the release
of paper A, paper B's tables, the adjacency calibration, the duration sweep, the fidelity tables); see
workflow/papers/spdp/spdp.md for what each produces.

Each job reads ``job.params.cfg`` (the slice of the ``spdp`` config section its rule passes) and
``job.params.seed`` where it draws random numbers; it unpacks its params, calls the library (or the paper's
analyses), and writes its outputs.
"""
