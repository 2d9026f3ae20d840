"""Entry point of every py_pytest target: run pytest, exit with its status.

Bazel's own temp dir holds pytest's cache so nothing is written into the
source tree, and `-p no:cacheprovider` keeps runs independent of each other.
"""

import sys

import pytest

if __name__ == "__main__":
    sys.exit(pytest.main(["-p", "no:cacheprovider", "-q", *sys.argv[1:]]))
