"""`rocke isa` on conv_fwd_split_k_reduce, a kernel without a loop: its whole
kernel's memory instructions are known by construction from each case.

A lane reduces V elements, V the widest of 4, 2, 1 that divides the output's
E elements (split_k_reduce.py): it loads each of the S f32 slices as one
V-wide load (4V bytes), the bias (where the layer has one) as one V-wide
load where its V elements are V consecutive channels (channels-last,
K % V == 0), as one f32 where they share a channel (channels-first,
pixels % V == 0), else as V f32 loads, the residual (where the layer has
one) as one V-wide load of the output type, and stores V elements of the
output type once. No matrix
op, no LDS, no barrier, no loop."""

import contextlib
import io
import json
import math

import pytest

from app.cli import command_line, isa_cmd
from conv import split_k_reduce

FAMILY = "conv_fwd_split_k_reduce"
CASES = split_k_reduce.FAMILY.cases
ARCHS = ("gfx942", "gfx1201")  # CDNA3 and RDNA4 spell their memory ops apart
BYTES = {"f16": 2, "bf16": 2, "f32": 4}


def main(argv):
    """The command line with `rocke isa` and this family alone: an edit to another family does not re-run this test."""
    return command_line.main(argv, {"isa": isa_cmd}, command_line.registry(split_k_reduce))


def _report(case_id):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["isa", FAMILY, "--case", case_id, "--json"]) == 0
    return json.loads(out.getvalue())


def _expected(spec):
    """(loads, load bytes per lane, store bytes per lane) of a ReduceSpec."""
    conv = spec.conv
    elements = math.prod(conv.output_shape())
    v = next(w for w in (4, 2, 1) if elements % w == 0)
    loads, load_bytes = spec.split_k, spec.split_k * 4 * v
    if conv.residual != "none":
        loads, load_bytes = loads + 1, load_bytes + v * BYTES[conv.dtype]
    if conv.bias:
        pixels = math.prod(conv.output)
        if conv.channels_last and conv.k % v == 0:
            loads, load_bytes = loads + 1, load_bytes + 4 * v
        elif not conv.channels_last and pixels % v == 0:
            loads, load_bytes = loads + 1, load_bytes + 4
        else:
            loads, load_bytes = loads + v, load_bytes + 4 * v
    return loads, load_bytes, v * BYTES[conv.dtype]


def test_the_cases_cover_every_way_to_load_the_bias():
    kinds = {(c.spec.conv.bias, _expected(c.spec)[0] - c.spec.split_k) for c in CASES if c.spec.conv.residual == "none"}
    assert {(True, 1), (True, 4), (False, 0)} <= kinds, kinds  # wide or shared, one per element, none


@pytest.mark.parametrize("case", [c for c in CASES if c.arch in ARCHS], ids=lambda c: c.id)
def test_loads_and_stores_per_lane_are_the_cases(case):
    r = _report(case.id)
    loads, load_bytes, store_bytes = _expected(case.spec)
    kernel = r["whole_kernel"]
    assert r["main_loop"] is None and r["lds_banks"]["accesses"] == []
    assert (kernel["global_loads"]["count"], kernel["global_loads"]["bytes"]) == (loads, load_bytes), kernel[
        "global_loads"
    ]
    assert (kernel["global_stores"]["count"], kernel["global_stores"]["bytes"]) == (1, store_bytes), kernel[
        "global_stores"
    ]
    assert (
        kernel["matrix"]["count"],
        kernel["lds_reads"]["count"],
        kernel["lds_writes"]["count"],
        kernel["barriers"],
    ) == (0, 0, 0, 0)
    assert r["resources"]["workgroup_size"] == 256 and r["resources"]["lds"] == 0
