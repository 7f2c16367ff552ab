"""dpkmeans: Ravi, Scaglione et al., *Differentially Private K-means Clustering Applied to Meter Data
Analysis and Synthesis* (IEEE TSG 2022), Figs. 3, 5-11 (Figs. 12-13: :mod:`dpgrid.papers.dpkmeans.opf`).

:mod:`.stages` (rule bodies, one module per pipeline stage), :mod:`.clustering` (outlier rule, the two k-means
fits), :mod:`.clustering_npz` (the clustering.npz store), :mod:`.algorithm1` (the release), :mod:`.figures` (one
function per figure, from the result tables only), :mod:`.claims` (the claims table: specs; measures in
:mod:`.claim_measures`, shared tables in :mod:`.claims_context`), :mod:`.paper` (numbers printed in the paper).
"""
