"""Tests of dpgrid.papers.spdp."""
