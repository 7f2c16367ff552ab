"""Tests of dpgrid.papers.blowfish."""
