"""Tests of dpgrid.papers.dpkmeans."""
