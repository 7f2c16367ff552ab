"""Tests of dpgrid.papers.classdp."""
