"""Tests of dpgrid.data."""
