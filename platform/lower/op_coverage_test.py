"""Every table keyed by op name covers exactly the ops of ir/ops.json: the
verifier's registry, the lowering, the interpreter and the fuzz generator."""

import json

from interp.interp import EXEC
from ir import kernel_gen, ops
from lower.llvm import LOWER

with open(ops.PATH) as f:
    NAMES = set(json.load(f)["ops"])

# scf.yield ends a region: its parent op lowers, runs and makes it.
YIELD = {"scf.yield"}


def test_ops_json_names_ops():
    assert len(NAMES) > 40 and YIELD <= NAMES


def test_the_registry_covers_exactly_the_ops_of_ops_json():
    assert set(ops.OPS) == NAMES


def test_the_lowering_covers_exactly_the_ops_of_ops_json():
    assert set(LOWER) | YIELD == NAMES


def test_the_interpreter_covers_exactly_the_ops_of_ops_json():
    assert set(EXEC) | YIELD == NAMES


def test_the_fuzz_generator_covers_exactly_the_ops_of_ops_json():
    assert set(kernel_gen.MAKERS) | YIELD == NAMES
