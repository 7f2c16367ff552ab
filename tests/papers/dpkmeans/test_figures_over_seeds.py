"""Fig. 9(b) over the replicates (dpgrid.papers.dpkmeans.figures.fig9_over_seeds): each method's loss is the
replicates' median and its band spans their lowest and highest loss, drawn from the spread table alone."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.collections import PolyCollection

from dpgrid.core.io import write_table
from dpgrid.core.spread import spread
from dpgrid.papers.dpkmeans.figures import fig9_over_seeds

METHODS = ["colored", "white", "yu2016"]
EPS_C = [1.0, 10.0, 100.0]


def test_losses_are_medians_and_bands_span_the_replicates(tmp_path):
    rng = np.random.default_rng(5)
    tables = [
        pd.DataFrame(
            [
                {"method": m, "eps_c": e, "delta_c": 0.01, "mean_loss": (i + 1) * 10.0 / e * rng.uniform(0.5, 2)}
                for i, m in enumerate(METHODS)
                for e in EPS_C
            ]
        )
        for _ in range(6)
    ]
    table = spread(tables, ["method", "eps_c", "delta_c"], ["mean_loss"])
    write_table(table, tmp_path / "fig9_accuracy.csv")
    fig = fig9_over_seeds(
        SimpleNamespace(spread=str(tmp_path / "fig9_accuracy.csv")),
        SimpleNamespace(data={"source": "dpkmeans_standin", "n_residential": 30}),
    )
    (ax,) = [a for a in fig.axes if a.lines]
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == len(METHODS)
    for method, band in zip(METHODS, bands):
        rows = table[table["method"] == method].sort_values("eps_c")
        (line,) = [ln for ln in ax.lines if ln.get_label() == method]
        np.testing.assert_allclose(line.get_ydata(), rows["median"])
        ys = np.concatenate([p.vertices[:, 1] for p in band.get_paths()])
        assert np.isclose(ys.min(), rows["low"].min()) and np.isclose(ys.max(), rows["high"].max())
    plt.close(fig)
