"""Tests of dpgrid.core."""
