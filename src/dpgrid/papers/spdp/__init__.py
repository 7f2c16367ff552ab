"""spdp: Parker, Hale, Barooah, *Spectral Differential Privacy: Application to Smart Meter Data*.

:mod:`.stages` (rule bodies that compute, one module per stage), :mod:`.figures` (one function per figure, from the result
tables only), :mod:`.claims` (the claims table rows), :mod:`.paper` (numbers printed in the paper).
"""
