"""Tests of dpgrid.papers.dpkmeans.peers."""
