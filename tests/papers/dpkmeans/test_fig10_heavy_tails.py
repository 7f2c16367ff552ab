"""The Fig. 10 row (dpkmeans-fig10-heavy-tails) on synthetic cluster tables: heavy tails in every cluster with more
homes than hours, none in the small ones, and exactly the paper's two small clusters, else not comparable."""

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from dpgrid.papers.dpkmeans import figure_measures

HOURS = [f"h{h:02d}" for h in range(4)]


def _table(sizes, heavy, rng):
    rows = []
    for k, (n, hv) in enumerate(zip(sizes, heavy, strict=True)):
        x = rng.standard_t(3, (n, len(HOURS))) if hv else rng.uniform(-1, 1, (n, len(HOURS)))
        rows.append(pd.DataFrame(x, columns=HOURS).assign(cluster=k))
    return pd.concat(rows, ignore_index=True)


@settings(max_examples=30, deadline=None)
@given(
    big=st.lists(st.booleans(), min_size=1, max_size=3),
    small=st.lists(st.booleans(), min_size=0, max_size=3),
    seed=st.integers(0, 2**32 - 1),
)
def test_heavy_tails_row_follows_its_stated_criterion(big, small, seed):
    from types import SimpleNamespace

    rng = np.random.default_rng(seed)
    sizes = [4000] * len(big) + [3] * len(small)  # 3 homes <= 4 hours: a small cluster
    t = _table(sizes, big + small, rng)
    m = figure_measures.fig10_heavy_tails(SimpleNamespace(profiles_true=t, standin=False, paper_sized=False))
    if len(small) != 2:
        assert m.status == "not comparable" and f"{len(small)} clusters" in m.note
        return
    assert m.status == "compared"
    kurt = [
        float(np.nanmedian([figure_measures.excess_kurtosis(g[h].to_numpy(float)) for h in HOURS]))
        for _, g in t.groupby("cluster")
    ]
    expected = all(k >= figure_measures.HEAVY_KURTOSIS for k in kurt[: len(big)]) and not any(
        k >= figure_measures.HEAVY_KURTOSIS for k in kurt[len(big) :]
    )
    assert m.value == expected
