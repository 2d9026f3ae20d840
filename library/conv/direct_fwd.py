"""conv_direct_fwd: direct forward convolution, one output per lane.

Each lane loops over its group's input channels at run time and over the
filter taps at Python time (unrolled), accumulating in f32. Any groups,
depthwise included.
"""

import math

from conv import common
from conv.cases import direct_cases
from conv.family_names import NAMES
from family.family import Family
from ir import types as T

# The family's name, from its rocke_family target (BUILD.bazel).
NAME = NAMES[__name__]


def build(case):
    spec = case.spec
    fr = common.Frame(NAME + "_" + case.id, spec, case.arch)
    b = fr.b

    def body():
        group = b.udiv(fr.k, spec.k_per_group)
        with b.for_range(0, spec.c_per_group, 1, [b.const(0.0, T.F32)]) as loop:
            ci = loop.iv
            c = b.add(b.mul(group, spec.c_per_group), ci)
            acc = loop.iters[0]
            for taps in _taps(spec.filter):
                if spec.channels_last:
                    w_index = b.add(
                        b.mul(b.add(b.mul(fr.k, math.prod(spec.filter)), _linear(taps, spec.filter)), spec.c_per_group),
                        ci,
                    )
                else:
                    w_index = b.add(
                        b.mul(b.add(b.mul(fr.k, spec.c_per_group), ci), math.prod(spec.filter)),
                        _linear(taps, spec.filter),
                    )
                acc = b.fma(fr.tap(c, taps), fr.weight(w_index), acc)
            b.yield_(acc)
        fr.store(loop.results[0])

    return fr.kernel(body)


def _taps(filter_):
    import itertools

    return itertools.product(*(range(f) for f in filter_))


def _linear(taps, sizes):
    index = 0
    for t, size in zip(taps, sizes):
        index = index * size + t
    return index


FAMILY = Family(NAME, direct_cases(), build, lambda case, rng: common.numeric_check(case.spec, rng))
