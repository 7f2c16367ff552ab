"""classdp's stages: the rule bodies of workflow/papers/classdp/classdp.smk that compute, one module per stage (the
synthetic classes' model, the release analyses, the household forecasts' ARMA models and releases, the similarity
sweep); see workflow/papers/classdp/classdp.md for what each produces.

Each job reads ``job.params.cfg`` (the slice of the ``classdp`` config section its rule passes) and
``job.params.seed`` where it draws random numbers; it unpacks its params, calls the library (or the paper's
analyses), and writes its outputs.
"""
