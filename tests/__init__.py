"""The tests mirror the library: tests/<layer>/ tests src/dpgrid/<layer>/ and tests/papers/<paper>/ tests
src/dpgrid/papers/<paper>/; tests/workflow/ holds the repository's meta-tests (CI, docs, costs, profiles,
rebuild triggers, layers, end-to-end runs); tests/helpers/ the shared helpers, tests/fixtures/ small data files.
tests/workflow/test_tests_layout.py checks this layout. Every folder is a package, so two test modules may share
a file name (tests/papers/classdp/test_jobs.py beside tests/papers/spdp/test_jobs.py)."""
