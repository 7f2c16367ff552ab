"""Sequential composition of (eps, delta) budgets.

dpkmeans paper (Ravi, Scaglione et al., IEEE TSG 2022), Lemma 1 / Corollary 1 (eq. 20):
(eps, delta) = (eps_c + eps_l, delta_c + delta_l). (Blowfish's Theorem 2, eps T over T steps, is
:func:`dpgrid.privacy.uniform_laplace.sequential_epsilon`.)
"""

from __future__ import annotations

from collections.abc import Iterable


def compose_sequential(budgets: Iterable[tuple[float, float]]) -> tuple[float, float]:
    """Lemma 1: (sum eps_i, sum delta_i)."""
    eps = delta = 0.0
    for e, d in budgets:
        if e < 0 or not 0 <= d <= 1:
            raise ValueError(f"invalid budget ({e!r}, {d!r})")
        eps += e
        delta += d
    return eps, min(delta, 1.0)
