"""Per-paper compositions of the concept modules, one module per paper plus ``report``.

Each public ``*_job(smk)`` function is the body of one Snakemake rule: it reads the rule's inputs,
params and config from the ``snakemake`` object, calls the library, and writes the outputs
atomically. They are thin: the mathematics lives in privacy/, mechanisms/, models/, data/, grid/.
"""
