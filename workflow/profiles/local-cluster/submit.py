#!/usr/bin/env python3
"""Submit a Snakemake job script: start it as a detached process, print its job id.

Profile entry point of cluster-generic-submit-cmd; the implementation is localjobs.py next to this file.
"""

import sys

sys.dont_write_bytecode = True  # keep the profile directory free of __pycache__

import localjobs

sys.exit(localjobs.main(["submit", *sys.argv[1:]]))
