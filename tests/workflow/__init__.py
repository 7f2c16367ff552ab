"""The repository's meta-tests: CI, docs map, costs, profiles, rebuild triggers, layers, environment, adding a
paper, and the end-to-end runs. No src/dpgrid package of this name: they test the repository around the library."""
