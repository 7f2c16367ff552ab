"""Numbers printed in the dpkmeans paper (Sec. V-B, Figs. 7-11)."""

PAPER = "dpkmeans"
PAPER_VALUES = {"delta_c_with_outliers": 39.20, "delta_c_without_outliers": 2.13, "n_outliers": 7, "P_clean": 1409}
#: Sec. V-B: meters before removing the outliers
P_ALL = 1416
#: Fig. 10: sizes of the two K-means clusters with fewer homes than d = 25 (data without outliers)
SMALL_CLUSTERS = (2, 4)
#: Fig. 8/11 release budget (eps_c, delta_c, eps_l, delta_l) and its total by Corollary 1 (eps, delta)
PAPER_BUDGET = (30.0, 0.2, 30.0, 0.0)
PAPER_TOTAL_BUDGET = (60.0, 0.2)
#: Algorithm 2's DP covariance is the Wishart mechanism of ref. [33] (Jiang et al. 2016), stated (eps, 0)-DP there
WISHART_CLAIMED_DELTA = 0.0
