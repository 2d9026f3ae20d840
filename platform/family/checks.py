"""A family's numeric checks as data: what the machine gates need of the
family, written by the NAME_checks action (emit.py --checks) so that the
gates read a file and never import the family. A comment-only edit to the
family re-runs that action, which writes the same bytes, and the machine
gates stay cached.

    {"cases": [{"id", "arch", "refused": CLASS}
               or {"id", "arch", "block", "grid", "whole": [AXIS...], "args": [ARG...],
                   "expected": {INDEX: {"values", "magnitudes", "length", "dtype"}}}],
     "family": NAME, "format": 2}

in the family's case order, one entry per case: "refused" when the family
refuses it (family.Refusal), else its kernel's workgroup size and the
case's NumericCheck on the numeric gate's inputs (Family.numeric), with the
grid axes a sampled launch runs whole (NumericCheck.whole). An ARG
is {"int": N} or an array {"dtype", "shape", "base64": its bytes} (random
data, which compression would not shrink). An output is decoded by its type
(bound.decode); the writer refuses a family whose decode differs from that,
naming the case.
"""

import base64
import dataclasses
import json

import numpy as np

from family import bound
from family.family import NumericCheck, Refusal

FORMAT = 2


class ChecksError(ValueError):
    """A case whose numeric check cannot be written as data; the message names it."""


@dataclasses.dataclass(frozen=True)
class Entry:
    """One case of the file: its arch, and either `refused` (the error class)
    or its kernel's `block` and its `numeric` check (decoded by type)."""

    arch: str
    refused: str = ""
    block: tuple = ()
    numeric: NumericCheck | None = None


def _array(a):
    a = np.ascontiguousarray(a)
    return {
        "dtype": a.dtype.str,
        "shape": list(a.shape),
        "base64": base64.b64encode(a.tobytes()).decode("ascii"),
    }


def _unarray(record):
    data = base64.b64decode(record["base64"])
    return np.frombuffer(data, np.dtype(record["dtype"])).reshape(record["shape"]).copy()


def _arg(value, where):
    if isinstance(value, np.ndarray):
        return _array(value)
    if type(value) is int:
        return {"int": value}
    raise ChecksError(
        f"{where}: expected a numpy array or an int, got {type(value).__name__}; the emulator takes those"
    )


def _same_decode(numeric, index, want, where):
    """ChecksError unless the family's decode of argument `index` is bound.decode of its type."""
    raw = np.asarray(numeric.args[index])
    # The bit patterns 0 .. size - 1 in the output's storage type: every 16-bit
    # pattern only for a 16-bit output of 65,536 elements or more.
    probe = np.arange(raw.size).astype(raw.dtype).reshape(raw.shape)
    mine = np.asarray(numeric.decode(probe), np.float64).reshape(-1)
    typed = bound.decode(probe, want.dtype).reshape(-1)
    differ = np.flatnonzero(~((mine == typed) | (np.isnan(mine) & np.isnan(typed))))
    if differ.size:
        i = int(differ[0])
        raise ChecksError(
            f"{where}: argument {index}: the family's decode differs from a {want.dtype} output's ({raw.dtype} storage): "
            f"element {i} decodes to {mine[i]!r}, bound.decode gives {typed[i]!r}; the machine gate decodes by type"
        )


def _case(fam, case):
    try:
        kernel = fam.build(case)
    except Refusal as e:
        return {"id": case.id, "arch": case.arch, "refused": type(e).__name__}
    numeric = fam.numeric(case)
    where = f"family {fam.name}, case {case.id}"
    expected = {}
    for index, want in sorted(numeric.expected.items()):
        _same_decode(numeric, index, want, where)
        expected[str(index)] = {
            "values": _array(np.asarray(want.values, np.float64)),
            "magnitudes": _array(np.asarray(want.magnitudes, np.float64)),
            "length": int(want.length),
            "dtype": want.dtype,
        }
    return {
        "id": case.id,
        "arch": case.arch,
        "block": [int(n) for n in kernel.attrs["workgroup_size"]],
        "grid": [int(n) for n in numeric.grid],
        "whole": [int(axis) for axis in numeric.whole],
        "args": [_arg(a, f"{where}: argument {i}") for i, a in enumerate(numeric.args)],
        "expected": expected,
    }


def render(fam):
    """The file's bytes for Family `fam`: canonical JSON, the same on every run."""
    document = {"cases": [_case(fam, case) for case in fam.cases], "family": fam.name, "format": FORMAT}
    return (json.dumps(document, indent=1, sort_keys=True) + "\n").encode()


def _entry(record):
    if "refused" in record:
        return Entry(record["arch"], refused=record["refused"])
    expected = {
        int(i): bound.Expected(_unarray(e["values"]), _unarray(e["magnitudes"]), e["length"], e["dtype"])
        for i, e in record["expected"].items()
    }
    args = [a["int"] if "int" in a else _unarray(a) for a in record["args"]]
    # The writer checked that each output's decode is its type's, by how it is stored.
    numeric = NumericCheck(args, tuple(record["grid"]), expected, bound.decode_stored, tuple(record["whole"]))
    return Entry(record["arch"], block=tuple(record["block"]), numeric=numeric)


def read(path):
    """(family name, {id: Entry}) of a file render() wrote, in the family's case order."""
    with open(path) as f:
        document = json.load(f)
    if document.get("format") != FORMAT:
        raise ChecksError(f"{path}: expected format {FORMAT}, got {document.get('format')!r}; rebuild NAME_checks")
    return document["family"], {record["id"]: _entry(record) for record in document["cases"]}
