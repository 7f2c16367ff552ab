"""dpkmeans' rule bodies (workflow/papers/dpkmeans/dpkmeans.smk), one module per pipeline stage; see
workflow/papers/dpkmeans/dpkmeans.md for what each produces and the choices made.

Each job reads ``job.params.cfg`` (the slice of the ``dpkmeans`` config section its rule passes) and
``job.params.seed`` where it draws random numbers; it unpacks its params, calls the library (or the paper's
analyses), and writes its outputs.
"""
