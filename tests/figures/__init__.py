"""Tests of dpgrid.figures."""
