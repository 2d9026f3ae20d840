"""A family's case list as canonical JSON, the same bytes for both engines.

    {"cases":[{"arch":A,"id":ID,"spec":SPEC},...],"family":NAME,"format":1}

Canonical means RFC 8785 (JCS) for the values a spec holds: keys sorted, no
whitespace, ints as ints, lists (never tuples), no floats; ../ir/SPELLING.md
states it. SPEC is the spec's to_json(); its class's from_json reads it back
to an equal spec, which the NAME_cases_json gate checks for every case.
"""

import json

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
