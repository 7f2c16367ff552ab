"""Fig. 4 over the data replicates (dpgrid.papers.classdp.figures.fig4_over_seeds): each curve is the replicates'
median and its band spans their lowest and highest delta, drawn from the spread table alone."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.collections import PolyCollection

from dpgrid.core.io import write_table
from dpgrid.core.spread import spread
from dpgrid.papers.classdp.figures import fig4_over_seeds

RHOS = [0.45, 1.4]
EPS = np.round(np.linspace(0.1, 1.0, 10), 6)


def _curves(rng) -> pd.DataFrame:
    rows = [{"mechanism": "no_noise", "rho": np.nan, "epsilon": e, "delta": 0.9 - 0.1 * e} for e in EPS]
    for rho in RHOS:
        for name, top in (("white", 0.7), ("proposed", 0.6)):
            shift = rng.uniform(-0.05, 0.05)
            rows += [{"mechanism": name, "rho": rho, "epsilon": e, "delta": top - 0.3 * e + shift} for e in EPS]
    return pd.DataFrame(rows)


def test_curves_are_medians_and_bands_span_the_replicates(tmp_path):
    rng = np.random.default_rng(3)
    table = spread([_curves(rng) for _ in range(5)], ["mechanism", "rho", "epsilon"], ["delta"])
    write_table(table, tmp_path / "fig4_delta.csv")
    fig = fig4_over_seeds(
        SimpleNamespace(spread=str(tmp_path / "fig4_delta.csv")),
        SimpleNamespace(rhos=RHOS, delta_tolerance=1e-8, data={"source": "csv", "step_minutes": 30}),
    )
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.lines]
    assert len(panels) == len(RHOS)
    for ax, rho in zip(panels, RHOS):
        want = table[(table["mechanism"] == "proposed") & np.isclose(table["rho"], rho)].sort_values("epsilon")
        (line,) = [ln for ln in ax.lines if ln.get_label() == "proposed"]
        np.testing.assert_allclose(line.get_ydata(), want["median"])
        bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
        assert len(bands) == 3  # no noise, white, proposed
        spans = sorted((p.vertices[:, 1].min(), p.vertices[:, 1].max()) for c in bands for p in c.get_paths())
        rows = table[(table["mechanism"] == "proposed") & np.isclose(table["rho"], rho)]
        assert any(np.allclose(s, (rows["low"].min(), rows["high"].max())) for s in spans)
    assert "median over 5 draws" in " ".join(t.get_text() for t in fig.texts).replace("\n", " ")
    plt.close(fig)
