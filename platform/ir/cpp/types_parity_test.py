"""The C++ types (types_dump) against Python's ir.types: every scalar, every
vector, every pointer, and the errors of bad parts, with the same facts."""

import json
import os
import subprocess

import pytest

from errors.errors import check_parity
from ir import types as T

DUMP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "types_dump")


@pytest.fixture(scope="module")
def dump():
    return json.loads(subprocess.run([DUMP], capture_output=True, text=True, check=True).stdout)


def test_scalars(dump):
    assert dump["scalars"] == [[str(t), t.bits, t.nbytes, t.is_int, t.is_float] for t in T.SCALARS.values()]


def test_vectors(dump):
    python = [T.vector(t, n) for t in T.SCALARS.values() for n in range(2, T.MAX_LANES + 1)]
    assert dump["vectors"] == [[str(v), v.nbytes, v.n] for v in python]


def test_pointers(dump):
    # The dump names the spaces itself, so a space only one side has fails here.
    assert dump["pointers"] == [[str(T.ptr(s)), n] for s, n in T.ADDRESS_SPACES.items()]


# The same cases as types_dump.cc, by the name the dump gives each.
BAD = {
    "vector(F16, 0)": lambda: T.vector(T.F16, 0),
    "vector(F16, 65)": lambda: T.vector(T.F16, 65),
    "vector(vector(F16, 4), 2)": lambda: T.vector(T.vector(T.F16, 4), 2),
    "vector(GLOBAL, 2)": lambda: T.vector(T.GLOBAL, 2),
    "vector(None, 2)": lambda: T.vector(None, 2),
    "ptr('shared')": lambda: T.ptr("shared"),
    'ptr("it\'s")': lambda: T.ptr("it's"),
    "ptr('')": lambda: T.ptr(""),
}


def test_errors(dump):
    assert sorted(dump["errors"]) == sorted(BAD)
    for case, make in BAD.items():
        with pytest.raises(T.BadTypeError) as e:
            make()
        check_parity(e.value, dump["errors"][case], case)
