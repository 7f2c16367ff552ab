"""One package per paper: the composition of the library layers that reproduces the paper's figures,
tables and claims (its printed numbers, stand-in data, analyses, jobs, figures and claims). Nothing below
``dpgrid.papers`` imports from here, and no paper imports another paper's package."""
