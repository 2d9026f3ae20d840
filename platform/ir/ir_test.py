"""The IR: builder, verifier, and the exact text round trip."""

import glob
import os

import pytest

from ir import types as T
from ir.builder import KernelBuilder
from ir.core import VerifyError
from ir.parser import ParseError, parse
from ir.printer import print_kernel
from ir.verifier import verify

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")


def read(path):
    with open(path) as f:
        return f.read()


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(DATA, "valid", "*.rk"))), ids=os.path.basename)
def test_valid_text_round_trips_exactly(path):
    text = read(path)
    kernel = parse(text)
    verify(kernel)
    assert print_kernel(kernel) == text


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(DATA, "invalid", "*.rk"))), ids=os.path.basename)
def test_invalid_text_raises_its_error(path):
    text = read(path)
    kind, expected = text.splitlines()[0].removeprefix("// ").split(": ", 1)
    if kind == "expect-parse":
        with pytest.raises(ParseError) as err:
            parse(text)
    else:
        assert kind == "expect"
        kernel = parse(text)
        with pytest.raises(VerifyError) as err:
            verify(kernel)
    assert expected in str(err.value)


def test_types_are_interned():
    assert T.vector(T.F16, 4) is T.vector(T.F16, 4)
    assert T.ptr("global") is T.GLOBAL
    assert T.GLOBAL.addrspace == 1 and T.LDS.addrspace == 3 and T.BUFFER.addrspace == 8
    with pytest.raises(ValueError, match="expected an address space"):
        T.ptr("shared")


def test_types_come_from_types_json():
    # The order of the file is the order of SCALARS (the parser's error lists it).
    assert list(T.SCALARS) == ["i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f8e4m3", "f8e5m2"]
    assert T.ADDRESS_SPACES == {"global": 1, "lds": 3, "constant": 4, "private": 5, "buffer": 8}
    assert T.MAX_LANES == 64 and T.F8E5M2.bits == 8 and T.BF16.is_float


@pytest.mark.parametrize(
    "text, message",
    [
        (
            '{"scalars": [], "address_spaces": []}',
            "expected keys ['address_spaces', 'max_lanes', 'scalars'], got ['address_spaces', 'scalars']",
        ),
        (
            '{"scalars": [{"name": "i1", "bits": 1}], "address_spaces": [], "max_lanes": 64}',
            "scalars/0: expected keys ['bits', 'kind', 'name'], got ['bits', 'name']",
        ),
        (
            '{"scalars": [{"name": "q8", "bits": 8, "kind": "fixed"}], "address_spaces": [], "max_lanes": 64}',
            "scalars/0: expected kind 'int' or 'float', got 'fixed'",
        ),
    ],
)
def test_bad_types_json_names_the_entry(tmp_path, text, message):
    path = tmp_path / "types.json"
    path.write_text(text)
    with pytest.raises(ValueError) as e:
        T._load(str(path))
    assert str(e.value) == f"{path}: {message}"


def axpy(arch="gfx942"):
    b = KernelBuilder("axpy", arch=arch, workgroup_size=(256, 1, 1))
    x, y, a, n = b.arg("x", T.GLOBAL), b.arg("y", T.GLOBAL), b.arg("a", T.F32), b.arg("n", T.I32)
    i = b.add(b.mul(b.block_id(0), 256), b.thread_id(0))
    with b.if_(b.cmp("lt", i, n)):
        off = b.mul(i, 4)
        px, py = b.offset(x, off), b.offset(y, off)
        b.store(py, b.fma(a, b.load(px, T.F32), b.load(py, T.F32)))
    return b.finish()


def test_builder_makes_a_verified_kernel_that_round_trips():
    kernel = axpy()
    text = print_kernel(kernel)
    assert print_kernel(parse(text)) == text
    assert "scf.if(" in text and "math.fma(" in text
    assert kernel.attrs == {"arch": "gfx942", "wave_size": 64, "workgroup_size": [256, 1, 1]}


def test_builder_reports_a_mistake_where_it_is_made():
    b = KernelBuilder("bad", arch="gfx942", workgroup_size=(64, 1, 1))
    n = b.arg("n", T.I32)
    with pytest.raises(VerifyError, match="arith.add: expected operands and result of one type, got i32, f32, i32"):
        b.emit("arith.add", [n, b.const(1.0, T.F32)], [T.I32])


def test_run_time_loop_with_carried_values():
    b = KernelBuilder("sum", arch="gfx1201", workgroup_size=(32, 1, 1))
    n = b.arg("n", T.I32)
    with b.for_range(0, n, 1, [b.const(0.0, T.F32)]) as loop:
        b.yield_(b.add(loop.iters[0], b.convert(loop.iv, T.F32)))
    assert loop.results[0].type is T.F32
    kernel = b.finish()
    assert kernel.attrs["wave_size"] == 32


def test_loop_without_yield_for_carried_values_is_an_error():
    b = KernelBuilder("sum", arch="gfx942", workgroup_size=(64, 1, 1))
    with pytest.raises(VerifyError, match="expected the region to end with b.yield_"):
        with b.for_range(0, 4, 1, [b.const(0.0, T.F32)]):
            pass


def test_python_time_control_flow_leaves_no_trace():
    b = KernelBuilder("unrolled", arch="gfx942", workgroup_size=(64, 1, 1))
    x = b.arg("x", T.I32)
    for _ in b.unroll(3):
        x = b.add(x, 1)
    text = print_kernel(b.finish())
    assert text.count("arith.add(") == 3 and "scf." not in text


def test_attribute_lists_nest_at_most_as_deep_as_regions():
    from ir.core import MAX_NESTING

    head = 'kernel @k() {arch = "gfx942", wave_size = 64, workgroup_size = [64, 1, 1]} {\n  gpu.barrier() {x = '
    deep = "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1)
    with pytest.raises(
        ParseError,
        match=f"line 2, column {len('  gpu.barrier() {x = ') + MAX_NESTING + 1}: expected lists nested at most {MAX_NESTING} deep",
    ):
        parse(head + deep + "}\n}\n")
