"""conv_img2col: convolution as a GEMM over the im2col matrix, one output per lane.

Output (n, o..., k) is row m of an (N*O) x K GEMM: the dot product of the
input patch behind it (a row of the im2col matrix, gathered on the fly) with
filter k, which is one contiguous row of C*R*S weights in either layout. A
single run-time loop walks that reduction index and decomposes it into the
channel and tap. groups must be 1.
"""

import math

from conv import common
from conv.cases import img2col_cases
from conv.family_names import NAMES
from conv.spec import SpecError
from family.family import Family, Refusal
from ir import types as T

# The family's name, from its rocke_family target (BUILD.bazel).
NAME = NAMES[__name__]


class Img2colSpecError(SpecError, Refusal):
    """conv_img2col cannot take this spec: names the field and the families that can."""


def build(case):
    spec = case.spec
    if spec.groups != 1:
        raise Img2colSpecError(
            f"conv_img2col: groups={spec.groups} is not supported (one GEMM needs groups=1); conv_direct_fwd or conv_igemm_fwd take grouped layers",
            "ConvSpec.groups",
            spec.groups,
            [1],
        )
    fr = common.Frame(NAME + "_" + case.id, spec, case.arch)
    b = fr.b
    taps = math.prod(spec.filter)
    reduction = spec.c * taps
    # The reduction index j walks a weight row in memory order.
    order = (*spec.filter, spec.c) if spec.channels_last else (spec.c, *spec.filter)

    def body():
        row = b.mul(fr.k, reduction)
        with b.for_range(0, reduction, 1, [b.const(0.0, T.F32)]) as loop:
            j = loop.iv
            parts = common.unflatten(b, j, order)
            c, tap = (parts[-1], parts[:-1]) if spec.channels_last else (parts[0], parts[1:])
            b.yield_(b.fma(fr.tap(c, tap), fr.weight(b.add(row, j)), loop.iters[0]))
        fr.store(loop.results[0])

    return fr.kernel(body)


FAMILY = Family(NAME, img2col_cases(), build, lambda case, rng: common.numeric_check(case.spec, rng))
