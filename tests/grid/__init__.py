"""Tests of dpgrid.grid."""
