#!/usr/bin/env python3
"""Print running, success or failed for one job id (Snakemake calls this with the id).

Profile entry point of cluster-generic-status-cmd; the implementation is localjobs.py next to this file.
"""

import sys

sys.dont_write_bytecode = True  # keep the profile directory free of __pycache__

import localjobs

sys.exit(localjobs.main(["status", *sys.argv[1:]]))
