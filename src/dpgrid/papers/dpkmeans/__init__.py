"""dpkmeans: Ravi, Scaglione et al., *Differentially Private K-means Clustering Applied to Meter Data
Analysis and Synthesis* (IEEE TSG 2022), Figs. 3, 5-11 (Figs. 12-13: :mod:`dpgrid.papers.dpkmeans.opf`).

:mod:`.jobs` (rule bodies that compute), :mod:`.figures` (one function per figure, from the result
tables only), :mod:`.claims` (the claims table rows), :mod:`.paper` (numbers printed in the paper).
"""
