"""Entry point of every py_pytest target: run pytest, exit with its status.

`-p no:cacheprovider` keeps runs independent of each other and writes nothing
into the tree. `--import-mode=append` puts a test's own folder last on
sys.path: first, `platform/arch/arch.py` would shadow the package `arch`
and `platform/tile/copy.py` the stdlib's `copy`.
"""

import sys

import pytest

if __name__ == "__main__":
    sys.exit(pytest.main(["-p", "no:cacheprovider", "--import-mode=append", "-q", *sys.argv[1:]]))
