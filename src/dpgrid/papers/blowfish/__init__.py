"""blowfish: GhoddousiBoroujeni et al., *Privacy of Real-Time Pricing in Smart Grid*.

:mod:`.stages` (rule bodies that compute, one module per stage), :mod:`.figures` (one function per figure, from the result
tables only), :mod:`.claims` (the claims table rows), :mod:`.paper` (numbers printed in the paper).
"""
