"""A family's case list as canonical JSON, the same bytes for both engines.

    {"cases":[{"arch":A,"id":ID,"spec":SPEC},...],"family":NAME,"format":1}

Canonical means RFC 8785 (JCS) for the values a spec holds: keys sorted, no
whitespace, ints as ints, lists (never tuples), no floats; ../ir/SPELLING.md
states it. SPEC is the spec's to_json(); its class's from_json reads it back
to an equal spec, which the NAME_cases_json gate checks for every case.

Both emitters build from this list (NAME_cases writes it): the Python one
through read() here, each spec read back with its class's from_json; the C++
one through rocke::family::read_cases (platform/family/cpp), which refuses
the same shapes, naming the same field and value in its own words.
"""

import dataclasses
import json
import operator

from family.family import Case, FamilyError

FORMAT = 1


def _check(value, where):
    """Refuse what has no single JSON spelling, naming where it is."""
    if value is None or type(value) in (bool, int, str):  # exact types: numpy ints and str subclasses are not JSON
        return
    if type(value) is list:
        for i, item in enumerate(value):
            _check(item, f"{where}[{i}]")
        return
    if type(value) is dict:
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError(f"{where}: expected string keys, got {key!r}")
            _check(item, f"{where}.{key}")
        return
    raise ValueError(
        f"{where}: expected a JSON value (dict with string keys, list, str, int, bool or None), got {type(value).__name__} {value!r}; "
        "a spec's to_json() returns lists for tuples and plain ints, and a spec holds no floats"
    )


def canonical(value, where="value"):
    """The canonical JSON text of `value` (no trailing newline)."""
    _check(value, where)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def document(fam):
    """The case list of a Family as a JSON value."""
    cases = []
    for case in fam.cases:
        to_json = getattr(case.spec, "to_json", None)
        if not callable(to_json):
            raise ValueError(
                f"family {fam.name}, case {case.id}: expected a spec with to_json() (and a from_json that reads it back), "
                f"got a {type(case.spec).__name__}; add them to the spec class"
            )
        cases.append({"arch": case.arch, "id": case.id, "spec": to_json()})
    return {"cases": cases, "family": fam.name, "format": FORMAT}


def render(fam):
    """The bytes of NAME.cases.json: canonical JSON and one newline."""
    return canonical(document(fam), f"family {fam.name}") + "\n"


FORM = '{"cases":[{"arch":ARCH,"id":ID,"spec":SPEC},...],"family":NAME,"format":1}'
REBUILD = "; rebuild it with the family's NAME_cases target (emit.py --cases-json)"


# The keys of a case list and of each of its cases.
KEYS = ["cases", "family", "format"]
CASE_KEYS = ["arch", "id", "spec"]


def _case(entry, index, where, fam, spec_classes):
    at = f"{where}: cases[{index}]"
    if type(entry) is not dict or sorted(entry) != CASE_KEYS:
        raise FamilyError(
            f"{at}: expected an object with exactly the keys arch, id and spec, got {entry!r}", at, entry, CASE_KEYS
        )
    for key in ("arch", "id"):
        if type(entry[key]) is not str or not entry[key]:
            raise FamilyError(f"{at}.{key}: expected a non-empty string, got {entry[key]!r}", f"{at}.{key}", entry[key])
    spec_class = spec_classes.get(entry["id"])
    if spec_class is None:
        raise FamilyError(
            f"{at}.id: expected a case id of the family, got {entry['id']!r}{REBUILD}",
            f"{at}.id",
            entry["id"],
            list(spec_classes),
        )
    from_json = getattr(spec_class, "from_json", None)
    if not callable(from_json):
        raise FamilyError(
            f"{at}.spec: expected a spec class with from_json, got {spec_class.__name__}; add it to the spec class",
            f"{at}.spec",
            spec_class.__name__,
        )
    try:
        spec = from_json(entry["spec"])
    except (TypeError, ValueError) as e:  # the spec class's own error (SpecError), named with its place and case
        field = f"{at}.spec"
        raise FamilyError(f"{field} (case {entry['id']}): {type(e).__name__}: {e}", field, entry["spec"]) from None
    return Case(entry["id"], entry["arch"], spec)


def read(text, fam):
    """The cases of a case list's text, for Family `fam`: each spec read back
    with the from_json of the spec class of the family's case with that id.
    FamilyError names what is wrong: not JSON, not the format, another
    family's list, no cases, a duplicate or unknown id."""
    where = f"case list of {fam.name}"
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise FamilyError(f"{where}: expected JSON text, got {e}{REBUILD}", where, text) from None
    if type(doc) is not dict or sorted(doc) != KEYS:
        raise FamilyError(
            f"{where}: expected {FORM}, got an object with other keys or no object{REBUILD}",
            where,
            sorted(doc) if type(doc) is dict else doc,
            KEYS,
        )
    if type(doc["format"]) is not int or doc["format"] != FORMAT:
        raise FamilyError(
            f"{where}: format: expected {FORMAT}, got {doc['format']!r}{REBUILD}",
            f"{where}: format",
            doc["format"],
            [FORMAT],
        )
    if doc["family"] != fam.name:
        raise FamilyError(
            f"{where}: family: expected {fam.name!r}, got {doc['family']!r}; pass the family's own NAME.cases.json",
            f"{where}: family",
            doc["family"],
            [fam.name],
        )
    if type(doc["cases"]) is not list or not doc["cases"]:
        raise FamilyError(
            f"{where}: cases: expected a non-empty list of cases, got {doc['cases']!r}{REBUILD}",
            f"{where}: cases",
            doc["cases"],
        )
    spec_classes = {c.id: type(c.spec) for c in fam.cases}
    cases, seen = [], set()
    for index, entry in enumerate(doc["cases"]):
        case = _case(entry, index, where, fam, spec_classes)
        if case.id in seen:
            raise FamilyError(
                f"{where}: cases[{index}].id: expected unique case ids, got {case.id!r} again{REBUILD}",
                f"{where}: cases[{index}].id",
                case.id,
            )
        seen.add(case.id)
        cases.append(case)
    return cases


def plain_int(value):
    """value as a plain int if it is an integer of any kind (numpy ints
    included, bools not), else unchanged: specs normalise their int fields
    with it, so that equal problems are equal specs."""
    if isinstance(value, bool):  # an int subclass, but not a number here
        return value
    try:
        return operator.index(value)
    except TypeError:
        return value


def spec_fields(cls, obj, error, flat=None):
    """The fields of dataclass spec `cls` that the JSON object `obj` spells,
    for cls(**...): refuses with `error` (the spec's error class, an
    errors.FieldError) anything but an object of cls's fields with every
    required one present. A spec's from_json is
    cls(**spec_fields(cls, obj, SpecError)). `flat` maps a field whose value
    the JSON spells as fields of its own, beside the spec's (a tile), to
    their names: those take its place, in its place (required if it is)."""
    name = cls.__name__
    required = {}
    for f in dataclasses.fields(cls):
        for spelled in (flat or {}).get(f.name, (f.name,)):
            required[spelled] = f.default is dataclasses.MISSING
    names = list(required)
    if not isinstance(obj, dict):
        raise error(f"{name}: expected a JSON object with the fields {', '.join(names)}, got {obj!r}", name, obj, names)
    for key in obj:
        if key not in required:
            raise error(
                f"{name}.{key}: expected one of the fields {', '.join(names)}, got the unknown field {key!r}",
                f"{name}.{key}",
                key,
                names,
            )
    for field, needed in required.items():
        if needed and field not in obj:
            raise error(f"{name}.{field}: expected a value (the field is required), got none", f"{name}.{field}", None)
    return obj
