"""Numbers printed in the dpkmeans paper (Sec. V-B, Figs. 7-11)."""

PAPER = "dpkmeans"
PAPER_VALUES = {"delta_c_with_outliers": 39.20, "delta_c_without_outliers": 2.13, "n_outliers": 7, "P_clean": 1409}
