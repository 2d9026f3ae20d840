"""ops.json: every op's counts, attributes and fp8 permission, as data.

The loader checks the file's shape and names the file and the entry on any
fault. `checker` makes the function that applies one op's schema, which
ops.py runs before the op's own type rule. OPS.md describes the schema.
"""

import json

from ir.core import VerifyError, attr_fact


class OpsError(ValueError):
    """ops.json is malformed."""


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_count(v):
    return _is_int(v) and v >= 0


# kind -> (accepts a value, how the verifier names it)
KINDS = {
    "bool": (lambda v: isinstance(v, bool), "a bool"),
    "float": (lambda v: isinstance(v, float), "a float"),
    "int": (_is_int, "an int"),
    "int list": (lambda v: isinstance(v, list) and all(map(_is_int, v)), "a list of ints"),
    "number": (lambda v: _is_int(v) or isinstance(v, float), "an int or a float"),
    "str": (lambda v: isinstance(v, str), "a str"),
}
OP_KEYS = ["attrs", "fp8", "operands", "regions", "results"]


def load(path):
    try:
        with open(path) as f:
            raw = json.load(f)
    except (OSError, ValueError) as e:
        raise OpsError(f"{path}: expected a readable JSON file, got {e}") from None

    def fail(where, what, got):
        raise OpsError(f"{path}: {where}: expected {what}, got {got}; fix that entry")

    if not isinstance(raw, dict) or sorted(raw) != ["ops", "tables"]:
        fail(
            "top level",
            "an object with keys ['ops', 'tables']",
            sorted(raw) if isinstance(raw, dict) else type(raw).__name__,
        )
    for key in ("ops", "tables"):
        if not isinstance(raw[key], dict) or not raw[key]:
            fail(key, "a non-empty object", repr(raw[key]))
    tables = raw["tables"]
    for name, values in tables.items():
        if not isinstance(values, list) or not values or len({json.dumps(v) for v in values}) != len(values):
            fail(f"tables.{name}", "a non-empty list of distinct values", repr(values))
    for name, entry in raw["ops"].items():
        where = f"ops.{name}"
        if not isinstance(entry, dict) or sorted(entry) != OP_KEYS:
            fail(where, f"an object with keys {OP_KEYS}", sorted(entry) if isinstance(entry, dict) else repr(entry))
        for key in ("operands", "results"):
            n = entry[key]
            if not (_is_count(n) or (isinstance(n, dict) and list(n) == ["min"] and _is_count(n["min"]))):
                fail(f"{where}.{key}", 'a count, or {"min": count} when variadic', repr(n))
        if not _is_count(entry["regions"]):
            fail(f"{where}.regions", "a count", repr(entry["regions"]))
        if not isinstance(entry["fp8"], bool):
            fail(f"{where}.fp8", "true or false", repr(entry["fp8"]))
        if not isinstance(entry["attrs"], dict):
            fail(f"{where}.attrs", "an object of attribute schemas", repr(entry["attrs"]))
        for key, spec in entry["attrs"].items():
            _check_attr(fail, f"{where}.attrs.{key}", spec, tables)
    return raw


def _check_attr(fail, where, spec, tables):
    if not isinstance(spec, dict) or "kind" not in spec or not set(spec) <= {"kind", "min", "optional", "values"}:
        fail(where, "an object with kind and optionally min, optional or values", repr(spec))
    if spec.get("optional", True) is not True:
        fail(f"{where}.optional", "true (leave it out for a required attribute)", repr(spec["optional"]))
    if spec["kind"] not in KINDS:
        fail(f"{where}.kind", f"one of {', '.join(sorted(KINDS))}", repr(spec["kind"]))
    if "min" in spec and not (spec["kind"] == "int" and _is_int(spec["min"])):
        fail(f"{where}.min", "an int bound on an int attribute", repr(spec["min"]))
    values = spec.get("values")
    if isinstance(values, str):
        if values not in tables:
            fail(f"{where}.values", f"a table among ({', '.join(sorted(tables))}) or a list", repr(values))
        values = tables[values]
    if values is not None:
        accepts = KINDS[spec["kind"]][0]
        if not isinstance(values, list) or not values or not all(map(accepts, values)):
            fail(f"{where}.values", f"a non-empty list of {spec['kind']} values or a table name", repr(values))


def values_of(spec, tables):
    """The allowed values of an attribute, or None when any value of its kind is."""
    values = spec.get("values")
    return tables[values] if isinstance(values, str) else values


def _phrase(values):
    # Names read "one of eq, ne"; numbers read "0, 1 or 2".
    if isinstance(values[0], str):
        return f"one of {', '.join(values)}"
    words = [str(v) for v in values]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def checker(entry, tables):
    """The function that raises VerifyError unless an op has the counts and
    attributes `entry` states: the entry is read once here, for the many ops
    of its name that get checked."""
    counts = []  # (field of the op, exact count or None, least count, what is expected)
    for key, noun in (("operands", "operand"), ("results", "result"), ("regions", "region")):
        n = entry[key]
        if isinstance(n, dict):
            counts.append((key, None, n["min"], f"at least {n['min']} {noun}(s)"))
        else:
            counts.append((key, n, n, f"{n} {noun}(s)"))
    attrs = []  # (key, optional, accepts, allowed values or None, least value or None, what is expected)
    for key, spec in sorted(entry["attrs"].items()):
        accepts, what = KINDS[spec["kind"]]
        values = values_of(spec, tables)
        if values is not None:
            what = _phrase(values)
        if "min" in spec:
            what = f"an int of at least {spec['min']}"
        attrs.append((key, bool(spec.get("optional")), accepts, values, spec.get("min"), what))

    def check(op):
        for key, exact, least, what in counts:
            got = len(getattr(op, key))
            if (got != exact) if exact is not None else (got < least):
                raise VerifyError.expected(op.name, what, got)
        given = op.attrs
        for key, optional, accepts, values, least, what in attrs:
            if key not in given:
                if optional:
                    continue
                raise VerifyError.expected(op.name, f"attribute {key}", f"attributes {sorted(given)}", sorted(given))
            value = given[key]
            if not (accepts(value) and (values is None or value in values) and (least is None or value >= least)):
                raise VerifyError.expected(op.name, f"{key} to be {what}", repr(value), attr_fact(value))

    return check
