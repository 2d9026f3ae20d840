"""problems.schema.json, the problems format's written home, against its
reader (problems.py) and planner (choose.py), which are the authority:

- the schema names every op the reader takes, and for each op exactly the
  fields the reader takes and requires;
- each enum is what the specs allow: every value plans on some arch, and a
  value outside it is refused naming the field, with exactly the enum's
  values (on some arch) as what the field allows;
- a value of a kind the schema excludes is refused by the reader too,
  naming the field;
- each op's example, and every entry of the network files, is valid under
  the schema and plans.

No JSON Schema library is in the pinned root, so `validate` below checks
the keywords the schema uses, and the first test refuses any other keyword
(an unchecked keyword would be a promise nobody tests).
"""

import json
import os
import re

import pytest

from arch import arch as archs
from planner import choose, problems

_HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_PATH = os.path.join(_HERE, "problems.schema.json")
CATALOG = os.path.join(_HERE, "..", "..", "catalog")
ARCHS = sorted(archs.ARCHS)

with open(SCHEMA_PATH, encoding="utf-8") as f:
    SCHEMA = json.load(f)
OPS = SCHEMA["$defs"]

# Keywords `validate` checks, and those that only describe.
CHECKED = {
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "pattern",
    "oneOf",
    "$ref",
}
ANNOTATIONS = {"$schema", "$defs", "title", "description", "examples"}
_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "null": lambda v: v is None,
}


def _resolve(ref):
    assert ref.startswith("#/"), ref
    node = SCHEMA
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def validate(schema, value, path="$"):
    """The errors of `value` under `schema` (a list of "path: why")."""
    if "$ref" in schema:
        return validate(_resolve(schema["$ref"]), value, path)
    errors = []
    types = schema.get("type")
    if types is not None:
        types = [types] if isinstance(types, str) else types
        if not any(_TYPES[t](value) for t in types):
            return [f"{path}: expected {' or '.join(types)}, got {value!r}"]
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: expected {schema['const']!r}, got {value!r}")
    if "enum" in schema and not any(value == e and type(value) is type(e) for e in schema["enum"]):
        errors.append(f"{path}: expected one of {schema['enum']}, got {value!r}")
    if "minimum" in schema and value < schema["minimum"]:
        errors.append(f"{path}: expected at least {schema['minimum']}, got {value!r}")
    if "pattern" in schema and not re.search(schema["pattern"], value):
        errors.append(f"{path}: expected text matching {schema['pattern']}, got {value!r}")
    if isinstance(value, list):
        if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value)):
            errors.append(f"{path}: expected {schema.get('minItems')} to {schema.get('maxItems')} items, got {value!r}")
        for i, item in enumerate(value):
            errors += validate(schema.get("items", {}), item, f"{path}[{i}]")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        errors += [f"{path}.{key}: required, absent" for key in schema.get("required", ()) if key not in value]
        for key, item in value.items():
            if key in props:
                errors += validate(props[key], item, f"{path}.{key}")
            elif schema.get("additionalProperties", True) is False:
                errors.append(f"{path}.{key}: not a field of this object")
    if "oneOf" in schema:
        matches = [s for s in schema["oneOf"] if not validate(s, value, path)]
        if len(matches) != 1:
            errors.append(
                f"{path}: expected to match exactly one of {len(schema['oneOf'])} schemas, matched {len(matches)}"
            )
    return errors


def _subschemas(schema):
    """Every schema nested in `schema` (itself included), by the keywords that nest them."""
    yield schema
    nested = [*schema.get("properties", {}).values(), *schema.get("$defs", {}).values(), *schema.get("oneOf", ())]
    if "items" in schema:
        nested.append(schema["items"])
    for sub in nested:
        yield from _subschemas(sub)


def _doc(*entries):
    return {"problems": list(entries)}


def _plan(entry):
    """The arch -> EntryError (or None: it plans) of one entry, on every arch."""
    good, bad = problems.read(_doc(entry))
    if bad:
        return {arch: bad[0] for arch in ARCHS}
    out = {}
    for arch in ARCHS:
        try:
            choose.choose(good[0], arch)
            out[arch] = None
        except problems.EntryError as e:
            out[arch] = e
    return out


def test_the_schema_uses_only_keywords_this_test_checks():
    used = {key for sub in _subschemas(SCHEMA) for key in sub}
    assert used <= CHECKED | ANNOTATIONS, f"unchecked keywords: {sorted(used - CHECKED - ANNOTATIONS)}"


@pytest.mark.parametrize(
    "value,where",
    [
        ({}, "$.problems: required"),
        (_doc({"op": "gemm", "m": 1, "n": 1, "k": 1}), "$.problems[0]: expected to match exactly one"),
        (_doc({"op": "gemm", "m": 1, "n": 1, "k": 1, "dtype": "f16", "lda": 1}), "$.problems[0]: expected"),
        (_doc({"op": "pooling"}), "$.problems[0]: expected to match exactly one"),
        ({"problems": {}}, "$.problems: expected array"),
    ],
)
def test_the_validator_refuses_what_the_schema_excludes(value, where):
    assert any(e.startswith(where) for e in validate(SCHEMA, value)), validate(SCHEMA, value)


def test_the_schema_has_every_op_and_each_ops_fields_as_the_reader_takes_them():
    assert sorted(OPS) == sorted(problems.OPS)
    for op, schema in OPS.items():
        allowed, required = problems.fields(op)
        assert schema["properties"]["op"] == {"const": op}
        assert set(schema["properties"]) - {"op", "name"} == set(allowed), op
        assert set(schema["required"]) - {"op"} == set(required), op


@pytest.mark.parametrize("op", sorted(OPS))
def test_each_ops_example_is_valid_and_plans_on_some_arch(op):
    for example in OPS[op]["examples"]:
        assert validate(SCHEMA, _doc(example)) == []
        assert None in _plan(example).values(), _plan(example)


def _enums():
    return [
        (op, field) for op, schema in sorted(OPS.items()) for field, f in schema["properties"].items() if "enum" in f
    ]


@pytest.mark.parametrize("op,field", _enums())
def test_each_enum_is_what_the_specs_allow(op, field):
    schema = OPS[op]
    example = schema["examples"][0]
    enum = schema["properties"][field]["enum"]
    for value in enum:
        # Taken as a value of the field on some arch (a family may still build no kernel of it there).
        planned = _plan(example | {field: value})
        assert any(e is None or e.field != field for e in planned.values()), f"{op}.{field} = {value!r}: {planned}"
    outside = 96 if all(isinstance(v, int) for v in enum) else "not-a-choice"
    refused = _plan(example | {field: outside})
    # Refused on every arch; naming the field wherever the arch has a tile for the op at all.
    assert None not in refused.values() and any(e.field == field for e in refused.values()), refused
    allowed = {json.dumps(v) for e in refused.values() if e.field == field for v in (e.allowed or ())}
    assert allowed == {json.dumps(v) for v in enum}, f"{op}.{field}: the reader allows {allowed}"


def _wrong_kind(schema):
    """A value of a JSON kind `schema` excludes."""
    candidates = ("text", 7, True, [7])
    if "type" in schema:
        return next(v for v in candidates if validate(schema, v))
    return next(v for v in candidates if all(type(v) is not type(e) for e in schema["enum"]))


def _fields():
    return [(op, field) for op, schema in sorted(OPS.items()) for field in schema["properties"] if field != "op"]


@pytest.mark.parametrize("op,field", _fields())
def test_a_value_of_a_kind_the_schema_excludes_is_refused_by_the_reader_naming_the_field(op, field):
    schema = OPS[op]
    wrong = _wrong_kind(schema["properties"][field])
    entry = schema["examples"][0] | {field: wrong}
    assert validate(SCHEMA, _doc(entry))
    refused = _plan(entry)
    assert None not in refused.values() and any(e.field == field for e in refused.values()), refused


@pytest.mark.parametrize("name", sorted(n for n in os.listdir(CATALOG) if n.endswith(".json")))
def test_the_network_files_are_valid_and_read(name):
    with open(os.path.join(CATALOG, name), encoding="utf-8") as f:
        doc = json.load(f)
    assert validate(SCHEMA, doc) == []
    assert problems.read(doc)[1] == []
