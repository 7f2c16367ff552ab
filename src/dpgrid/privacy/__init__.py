"""Privacy accounting: privacy-loss random variables, delta(eps) curves, bounds and calibrations.

Import submodules directly (``from dpgrid.privacy.gaussian_loss import ...``).
"""
