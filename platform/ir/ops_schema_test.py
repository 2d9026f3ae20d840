"""ops.json: canonical, loaded with one clear error per malformation (naming
the file and the entry), and checked before each op's type rule (OPS.md),
with the generic verifier messages pinned."""

import copy
import json

import pytest

from ir import op_schema, ops
from ir import types as T
from ir.core import Op, Value, VerifyError
from arch.json_edits import canonical, set_at, write_edited

with open(ops.PATH) as f:
    TEXT = f.read()
RAW = json.loads(TEXT)


def test_ops_json_is_canonical():
    assert TEXT == canonical(RAW)


def test_the_registry_is_exactly_the_ops_of_ops_json():
    assert sorted(ops.OPS) == sorted(RAW["ops"])
    assert ops.FP8_OPS == {name for name, entry in RAW["ops"].items() if entry["fp8"]}


# (edit, the entry the message must name, what it must say was expected)
MALFORMED = {
    "not an object": (lambda raw: raw.clear(), "top level", "an object with keys ['ops', 'tables']"),
    "no ops": (set_at(("ops",), {}), "ops", "a non-empty object"),
    "missing key": (
        lambda raw: raw["ops"]["arith.add"].pop("fp8"),
        "ops.arith.add",
        "an object with keys ['attrs', 'fp8', 'operands', 'regions', 'results']",
    ),
    "negative count": (
        set_at(("ops", "arith.add", "operands"), -1),
        "ops.arith.add.operands",
        'a count, or {"min": count} when variadic',
    ),
    "bad variadic count": (
        set_at(("ops", "scf.for", "results"), {"max": 3}),
        "ops.scf.for.results",
        'a count, or {"min": count} when variadic',
    ),
    "boolean regions": (set_at(("ops", "scf.if", "regions"), True), "ops.scf.if.regions", "a count"),
    "fp8 not a bool": (set_at(("ops", "mem.load", "fp8"), "yes"), "ops.mem.load.fp8", "true or false"),
    "unknown kind": (
        set_at(("ops", "arith.cmp", "attrs", "pred", "kind"), "enum"),
        "ops.arith.cmp.attrs.pred.kind",
        "one of bool, float, int, int list, number, str",
    ),
    "unknown table": (
        set_at(("ops", "arith.cmp", "attrs", "pred", "values"), "predicates"),
        "ops.arith.cmp.attrs.pred.values",
        "a table among (access_bytes,",
    ),
    "values of the wrong kind": (
        set_at(("ops", "gpu.thread_id", "attrs", "dim", "values"), ["x"]),
        "ops.gpu.thread_id.attrs.dim.values",
        "a non-empty list of int values or a table name",
    ),
    "min on a str": (
        set_at(("ops", "arith.cmp", "attrs", "pred", "min"), 1),
        "ops.arith.cmp.attrs.pred.min",
        "an int bound on an int attribute",
    ),
    "empty table": (set_at(("tables", "dims"), []), "tables.dims", "a non-empty list of distinct values"),
    "table with repeats": (set_at(("tables", "dims"), [0, 0]), "tables.dims", "a non-empty list of distinct values"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_file_names_the_file_and_the_entry(case, tmp_path):
    edit, entry, expected = MALFORMED[case]
    path = tmp_path / "ops.json"
    write_edited(RAW, edit, path)
    with pytest.raises(op_schema.OpsError) as err:
        op_schema.load(str(path))
    message = str(err.value)
    assert message.startswith(f"{path}: {entry}: expected {expected}"), message


def test_unreadable_file_is_one_clear_error(tmp_path):
    path = tmp_path / "ops.json"
    path.write_text("{")
    with pytest.raises(op_schema.OpsError, match=f"^{path}: expected a readable JSON file, got Expecting"):
        op_schema.load(str(path))


def test_a_rule_for_an_op_without_an_entry_is_refused():
    with pytest.raises(
        ValueError,
        match="expected an entry for gpu.sleep, got a rule for it in ops.py and no entry; add it to ops.json",
    ):
        ops.register("gpu.sleep")(lambda op: None)


def _op(name, operands=(), results=(T.I32,), attrs=None, regions=()):
    return Op(name, tuple(Value(t) for t in operands), tuple(Value(t) for t in results), attrs or {}, tuple(regions))


# Each fault the schema states, with the message the generic check gives.
SCHEMA_FAULTS = {
    "exact operand count": (_op("gpu.barrier", (T.I32,), ()), "gpu.barrier: expected 0 operand(s), got 1"),
    "exact result count": (_op("mem.store", (T.GLOBAL, T.I32), (T.I32,)), "mem.store: expected 0 result(s), got 1"),
    "minimum operand count": (_op("scf.for", (T.I32, T.I32), ()), "scf.for: expected at least 3 operand(s), got 2"),
    "region count": (_op("scf.if", (T.I1,), ()), "scf.if: expected 2 region(s), got 0"),
    "missing attribute": (_op("gpu.thread_id"), "gpu.thread_id: expected attribute dim, got attributes []"),
    "value outside a table": (
        _op("gpu.block_id", attrs={"dim": 3}),
        "gpu.block_id: expected dim to be 0, 1 or 2, got 3",
    ),
    "bool where an int is expected": (
        _op("gpu.block_id", attrs={"dim": True}),
        "gpu.block_id: expected dim to be 0, 1 or 2, got True",
    ),
    "value below the minimum": (
        _op("mem.lds_alloc", results=(T.LDS,), attrs={"bytes": 0, "align": 4}),
        "mem.lds_alloc: expected bytes to be an int of at least 1, got 0",
    ),
    "value outside an inline list": (
        _op("mem.lds_alloc", results=(T.LDS,), attrs={"bytes": 4, "align": 2}),
        "mem.lds_alloc: expected align to be 4, 8 or 16, got 2",
    ),
    "wrong kind": (
        _op("vector.extract", (T.vector(T.F32, 4),), (T.F32,), {"index": 1.0}),
        "vector.extract: expected index to be an int, got 1.0",
    ),
    "list of the wrong kind": (
        _op("vector.shuffle", (T.vector(T.F32, 4),) * 2, (T.vector(T.F32, 2),), {"mask": [0, "1"]}),
        "vector.shuffle: expected mask to be a list of ints, got [0, '1']",
    ),
    "name outside a table": (
        _op("arith.cmp", (T.I32, T.I32), (T.I1,), {"pred": "ult"}),
        "arith.cmp: expected pred to be one of eq, ne, lt, le, gt, ge, got 'ult'",
    ),
}


@pytest.mark.parametrize("case", sorted(SCHEMA_FAULTS))
def test_the_schema_is_checked_generically(case):
    op, message = SCHEMA_FAULTS[case]
    with pytest.raises(VerifyError) as err:
        ops.OPS[op.name](op)
    assert str(err.value) == message


def test_the_schema_runs_before_the_type_rule():
    # Both the predicate and the operand types are wrong: the schema speaks first.
    op = _op("arith.cmp", (T.I32, T.F32), (T.F32,), {"pred": "ult"})
    with pytest.raises(VerifyError, match="expected pred to be one of"):
        ops.OPS["arith.cmp"](op)


def test_the_verifier_follows_the_data(tmp_path, monkeypatch):
    # One op's attribute table edited in the data, and nothing else: the check follows.
    raw = copy.deepcopy(RAW)
    raw["tables"]["dims"] = [0, 1]
    path = tmp_path / "ops.json"
    path.write_text(canonical(raw))
    entry = op_schema.load(str(path))["ops"]["gpu.thread_id"]
    with pytest.raises(VerifyError, match="expected dim to be 0 or 1, got 2"):
        op_schema.checker(entry, raw["tables"])(_op("gpu.thread_id", attrs={"dim": 2}))
