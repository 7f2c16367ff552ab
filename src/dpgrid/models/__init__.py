"""Signal and statistical models: ARMA forecasting, PSD estimation, spectral factorisation,
log-normal fitting, household occupancy chains. Import submodules directly."""
