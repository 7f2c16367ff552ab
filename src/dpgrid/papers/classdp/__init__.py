"""classdp: Ramakrishna et al., *Differential Privacy for Class-based Data: A Practical Gaussian Mechanism*.

:mod:`.stages` (rule bodies that compute, one module per stage), :mod:`.figures` (one function per figure, from the result
tables only), :mod:`.claims` (the claims table rows), :mod:`.paper` (constants).
"""
