#!/usr/bin/env python3
"""Cancel running jobs: SIGTERM to the process group of each job id given.

Profile entry point of cluster-generic-cancel-cmd; the implementation is localjobs.py next to this file.
"""

import sys

sys.dont_write_bytecode = True  # keep the profile directory free of __pycache__

import localjobs

sys.exit(localjobs.main(["cancel", *sys.argv[1:]]))
