"""Figures: one plotting style for all papers. Figures read result tables; they never recompute."""

from dpgrid.figures.layout import check_layout, data_statement, place_legend
from dpgrid.figures.style import PALETTE, figure, save_figure, use_style

__all__ = ["PALETTE", "check_layout", "data_statement", "figure", "place_legend", "save_figure", "use_style"]
