"""blowfish's stages: the rule bodies of workflow/papers/blowfish/blowfish.smk that compute, one module per stage
(the seeded runs of the default setting, their tables, the zero-probability sweep, the density-ratio audit); see
workflow/papers/blowfish/blowfish.md for what each produces.

Each job reads ``job.params.cfg`` (the slice of the ``blowfish`` config section its rule passes, turned into the
scenario by :func:`dpgrid.papers.blowfish.day.settings_from_config`) and ``job.params.seed``; the mathematics is in
:mod:`dpgrid.papers.blowfish.day`, :mod:`dpgrid.models.occupancy`, :mod:`dpgrid.mechanisms.blowfish_pricing` and
:mod:`dpgrid.privacy.uniform_laplace`. Random streams: ``job_rng(seed, "blowfish", <stream>, <seed index>)``.
"""
