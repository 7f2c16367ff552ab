"""Privacy mechanisms (the papers' contributions and their baselines).

Import submodules directly (``from dpgrid.mechanisms.gaussian_class import ...``).
"""
