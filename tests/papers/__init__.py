"""Tests of dpgrid.papers."""
