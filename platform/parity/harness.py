"""The one harness of the spec parity tests: a C++ dump binary (its main
loop is cpp/dump_main.h) answers JSON requests, one line each, and the test
compares every answer with what Python makes of the same request.
A new spec parity test has its dump from rocke_cc_spec (generated for a
spec class alone, else a `main` calling `rocke::parity::dump_main`), and
binds its checks with spec_parity:

    TestSpecParity = harness.spec_parity(DUMP, BAD, GOOD, NormSpec.from_json)

An answer is ["ok", the spec's to_json()] or, for a refusal (an
errors.FieldError), ["error", [class name, field, value, allowed], message].
The engines agree when both accept with equal JSON, or both refuse with the
same class, field, value and allowed values; each words its own message,
which must be one line naming the field (its last dotted part: "input" of
"ConvSpec.input"; check)."""

import json
import subprocess

import pytest

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


def shape_refusals(base, unknown):
    """What every spec refuses before reading a field: JSON that is no
    object, `base` (every required field, only those) with the field
    `unknown` added, and `base` without each of its fields in turn."""
    return [
        [1, 2],
        "x",
        None,
        3,
        True,
        {**base, unknown: 1},
        *({key: value for key, value in base.items() if key != name} for name in base),
    ]


def sorted_json(request):
    """`request` as the dump reads it: JSON with sorted keys (Python then
    meets an unknown field in the same order as C++)."""
    return json.loads(json.dumps(request, sort_keys=True))


def spec_parity(dump, bad, good, make, classes=("SpecError",), wrap=None, extra=()):
    """A pytest class (bind it to a Test* name) checking the binary `dump`
    against Python: every spec of `bad` refused with the same facts, by one
    of `classes`; every spec of `good` accepted with equal to_json. `make`
    takes a request to the Python spec; `wrap` makes a spec the request the
    dump reads (the spec itself by default); `extra` requests follow the
    specs, for a module's own tests of the class's answers(tmp_path_factory)."""
    wrap = wrap or (lambda spec: spec)
    ran = []  # the dump's answers, once for all the class's tests

    class SpecParity:
        @staticmethod
        def answers(tmp_path_factory):
            """The dump's answers to the specs, then to `extra` (a module's own tests read those)."""
            if not ran:
                requests = [wrap(spec) for spec in bad + good] + list(extra)
                ran.append(answers(dump, requests, tmp_path_factory.mktemp("specs")))
            return ran[0]

        @pytest.fixture
        def cpp(self, tmp_path_factory):
            return self.answers(tmp_path_factory)

        def test_every_bad_spec_is_refused_with_pythons_facts(self, cpp):
            for obj, got in zip(bad, cpp):
                want = python(make, sorted_json(wrap(obj)))
                assert want[0] == "error" and want[1][0] in classes, obj  # the list holds only bad specs
                check(obj, got, want)

        def test_every_good_spec_reads_back_as_python_writes_it(self, cpp):
            for obj, got in zip(good, cpp[len(bad) :]):
                want = python(make, sorted_json(wrap(obj)))
                assert want[0] == "ok", obj
                check(obj, got, want)

    return SpecParity
