"""Figures: one plotting style for all papers. Figures read result tables; they never recompute."""

from dpgrid.figures.style import PALETTE, figure, save_figure, use_style

__all__ = ["PALETTE", "figure", "save_figure", "use_style"]
