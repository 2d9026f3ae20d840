"""The C++ arch table (arch_dump) against Python's arch.ARCHS: Python reads the
JSON through its own loader, so a generator or C++ bug shows as a mismatch."""

import dataclasses
import json
import os
import subprocess

import pytest

from arch import arch
from errors.errors import check_parity

DUMP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "arch_dump")

# Near misses (a hint), far misses (none), and names with quotes and escapes.
PROBES = [
    "gfx9422",
    "gfx94",
    "GFX942",
    "gfx1150",
    "gfx90",
    "gfx12",
    "gfx",
    "",
    "sm_90",
    "it's",
    'say "x"',
    "tab\tx",
    "g\\f",
]


@pytest.fixture(scope="module")
def dump():
    out = subprocess.run([DUMP, *PROBES], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def test_every_arch_every_field(dump):
    python = json.loads(json.dumps({name: dataclasses.asdict(a) for name, a in arch.ARCHS.items()}))
    assert list(dump["archs"]) == list(python)
    for name in python:
        assert dump["archs"][name] == python[name], name


def test_every_arch_lds_banks(dump):
    assert dump["banks"] == {name: dataclasses.asdict(arch.lds_banks(name)) for name in arch.ARCHS}


def test_errors_have_pythons_facts(dump):
    for probe in PROBES:
        with pytest.raises(arch.UnknownArchError) as e:
            arch.get(probe)
        check_parity(e.value, dump["errors"][probe], probe)
