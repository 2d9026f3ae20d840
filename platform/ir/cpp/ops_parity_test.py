"""The C++ op schema table (ops_dump) against what Python's op_schema.load
read from ops.json: Python reads the JSON through its own loader, so a
generator, mapping or C++ bug shows as a mismatch."""

import json
import os
import subprocess

import pytest

from errors.errors import check_parity
from ir import builder, op_schema, ops
from ir.core import VerifyError

DUMP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ops_dump")

# Near misses, an empty name, and names with quotes and escapes.
PROBES = ["arith.fadd", "arith", "ARITH.ADD", "scf.for ", "", "it's", 'say "x"', "tab\tx", "g\\f"]


@pytest.fixture(scope="module")
def dump():
    out = subprocess.run([DUMP, *PROBES], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


@pytest.fixture(scope="module")
def python():
    return op_schema.load(ops.PATH)


def test_every_op_every_field(dump, python):
    assert sorted(dump["ops"]) == sorted(python["ops"])
    for name, entry in python["ops"].items():
        assert dump["ops"][name] == entry, name


def test_allowed_values_resolved_as_python(dump, python):
    for name, entry in python["ops"].items():
        expected = {key: op_schema.values_of(spec, python["tables"]) for key, spec in entry["attrs"].items()}
        assert dump["values"][name] == {k: v for k, v in expected.items() if v is not None}, name


def test_errors_have_pythons_facts(dump):
    b = builder.KernelBuilder("k", "gfx942", (64, 1, 1))
    for probe in PROBES:
        with pytest.raises(VerifyError) as e:
            b.emit(probe, [], [])
        check_parity(e.value, dump["errors"][probe], probe)
