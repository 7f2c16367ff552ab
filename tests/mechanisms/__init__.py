"""Tests of dpgrid.mechanisms."""
