"""The one harness of the library's spec parity tests: a C++ dump binary
(its main loop is dump_main.h) answers JSON requests, one line each, and the
test compares every answer with what Python makes of the same request.
A new spec parity test writes a dump whose `main` calls
`rocke::parity::dump_main`, and its fixture returns
`harness.answers(DUMP, requests, tmp_dir)`.

An answer is ["ok", the spec's to_json()] or, for a refusal (an
errors.FieldError), ["error", [class name, field, value, allowed], message].
The engines agree when both accept with equal JSON, or both refuse with the
same class, field, value and allowed values; each words its own message,
which must be one line naming the field (its last dotted part: "input" of
"ConvSpec.input"; check)."""

import json
import subprocess

from errors.errors import FieldError


def answers(dump, requests, directory):
    """What the binary `dump` answers to `requests`: they are written to a
    file in `directory`, one JSON line each (keys sorted), its path the
    binary's one argument; one JSON line comes back per request, parsed."""
    path = directory / "requests.jsonl"
    path.write_text("".join(json.dumps(obj, sort_keys=True) + "\n" for obj in requests))
    lines = subprocess.run([dump, str(path)], capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(lines) == len(requests), f"{dump}: expected one answer per request ({len(requests)}), got {len(lines)}"
    return [json.loads(line) for line in lines]


def python(make, request):
    """Python's answer to `request`: make(request).to_json(), or its FieldError's facts and message."""
    try:
        return ["ok", make(request).to_json()]
    except FieldError as e:
        return ["error", json.loads(json.dumps(e.facts())), str(e)]


def check(request, cpp, py):
    """AssertionError unless the two answers agree (the module doc says
    when), naming the request and both answers."""
    where = f"request {json.dumps(request)}:\n  python: {py}\n  c++:    {cpp}"
    assert cpp[0] == py[0], f"one engine accepts, the other refuses; {where}"
    if cpp[0] == "ok":
        assert cpp[1] == py[1], f"the specs differ; {where}"
        return
    assert cpp[1] == py[1], f"the refusals' facts (class, field, value, allowed) differ; {where}"
    name = py[1][1].rsplit(".", 1)[-1]
    for engine, message in (("python", py[2]), ("c++", cpp[2])):
        assert "\n" not in message and name in message, f"{engine}'s message is not one line naming {name}; {where}"
