"""dpkmeans, Sec. V-B "Standard Test Systems" (Ravi et al., IEEE TSG 2022, Figs. 12-13): voltages on
two feeders under true and differentially private synthetic daily load profiles.

Steps of the paper, as implemented here (config section ``grid``):

1. sample P' houses from the true profiles, class-weighted (:func:`class_counts`: each cluster gets
   its population share of P', largest-remainder rounding; houses drawn without replacement within
   a cluster). P' is the number of load buses used (``grid.experiment.load_buses``);
2. draw the same number of synthetic profiles per cluster (:func:`draw_matched`); bus p gets the true
   house p and a synthetic profile of the same cluster. ``grid.experiment.n_reference_draws`` further
   independent class-matched samples of true houses ("reference1", ...) give the distance two samples
   of real houses have, which calibrates the claim;
3. scale the profiles of each bus by a multiplier fixed from the true sample (``grid.experiment.scaling``,
   :func:`bus_multipliers`), set bus active loads,
   reactive load = ``grid.opf.q_to_p_ratio`` x active;
4. AC OPF per hour (one wildcard job per batch of hours), voltage magnitude and angle at every bus;
5. histograms (Figs. 12-13), distances (Wasserstein-1, KS, bootstrap over buses), share of
   bus-hours outside the report band, claims.
"""
