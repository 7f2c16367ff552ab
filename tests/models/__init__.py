"""Tests of dpgrid.models."""
