"""The one harness of the library's spec parity tests: a C++ dump binary
(its main loop is dump_main.h) answers JSON requests, one line each, and the
test compares every answer with what Python makes of the same request.
A new spec parity test writes a dump whose `main` calls
`rocke::parity::dump_main`, and its fixture returns
`harness.answers(DUMP, requests, tmp_dir)`."""

import json
import subprocess


def answers(dump, requests, directory):
    """What the binary `dump` answers to `requests`: they are written to a
    file in `directory`, one JSON line each (keys sorted), its path the
    binary's one argument; one JSON line comes back per request, parsed."""
    path = directory / "requests.jsonl"
    path.write_text("".join(json.dumps(obj, sort_keys=True) + "\n" for obj in requests))
    lines = subprocess.run([dump, str(path)], capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(lines) == len(requests), f"{dump}: expected one answer per request ({len(requests)}), got {len(lines)}"
    return [json.loads(line) for line in lines]
