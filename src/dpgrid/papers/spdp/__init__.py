"""spdp: Parker, Hale, Barooah, *Spectral Differential Privacy: Application to Smart Meter Data*.

:mod:`.jobs` (rule bodies that compute), :mod:`.figures` (one function per figure, from the result
tables only), :mod:`.claims` (the claims table rows), :mod:`.paper` (numbers printed in the paper).
"""
