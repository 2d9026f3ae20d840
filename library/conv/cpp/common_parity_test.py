"""common.h against common.py: small kernels made with flatten, unflatten and
a Frame (an IR tap and a number tap, the weight, the bias epilogue) print the
same .rk text in both engines. common_dump makes each kernel below with the
same calls in C++."""

import json
import os
import subprocess

import pytest

from conv import common
from conv.spec import ConvSpec
from ir import types as T
from ir.builder import KernelBuilder
from ir.printer import print_kernel

DUMP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "common_dump")


def _index():
    b = KernelBuilder("index", arch="gfx942", workgroup_size=(64, 1, 1))
    x = b.arg("x", T.GLOBAL)
    coords = common.unflatten(b, b.thread_id(0), (2, 3, 4))
    j = common.flatten(b, coords, (2, 3, 4))
    b.store(b.offset(x, b.mul(j, 4)), j)
    return print_kernel(b.finish())


def _frame(spec):
    fr = common.Frame("frame", spec, "gfx1201")

    def body():
        c = fr.b.thread_id(1)
        fr.store(fr.b.fma(fr.tap(c, [c, 2]), fr.weight(c), fr.b.const(0.0, T.F32)))

    return print_kernel(fr.kernel(body))


PYTHON = {
    "index": _index,
    "frame_nchw_bias": lambda: _frame(
        ConvSpec(
            1,
            4,
            6,
            (5, 7),
            (3, 3),
            stride=(2, 1),
            pad=(1, 0),
            dilation=(1, 2),
            layout="NCHW",
            bias=True,
            activation="relu",
        )
    ),
    "frame_nhwc_epilogue": lambda: _frame(
        ConvSpec(1, 4, 6, (5, 7), (3, 3), pad=(1, 1), activation="gelu_erf", residual="before_activation", scale="0.5")
    ),
    "frame_nhwc_f32": lambda: _frame(ConvSpec(2, 3, 4, (6, 5), (2, 3), dtype="f32")),
}


@pytest.fixture(scope="module")
def cpp():
    return json.loads(subprocess.run([DUMP], capture_output=True, text=True, check=True).stdout)


def test_the_dump_has_every_kernel(cpp):
    assert sorted(cpp) == sorted(PYTHON)


@pytest.mark.parametrize("name", sorted(PYTHON))
def test_same_rk_text(cpp, name):
    assert cpp[name] == PYTHON[name]()
