"""Tests of dpgrid.privacy."""
