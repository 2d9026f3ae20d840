"""ConvSpec validation: every bad field is named, with the value and what is allowed."""

import pytest

from conv.cases import direct_cases, img2col_cases
from conv.spec import ConvSpec, SpecError


def test_defaults_and_output_size():
    s = ConvSpec(1, 8, 4, (7, 9), (3, 3), stride=(2, 1), pad=(1, 0))
    assert s.stride == (2, 1) and s.dilation == (1, 1)
    assert s.output == (4, 7)
    assert s.input_shape() == (1, 7, 9, 8) and s.weight_shape() == (4, 3, 3, 8)
    assert ConvSpec(1, 8, 4, (7, 9), (3, 3), layout="NCHW").weight_shape() == (4, 8, 3, 3)


@pytest.mark.parametrize("kwargs,message", [
    (dict(n=0), "ConvSpec.n: expected a positive int, got 0"),
    (dict(spatial=(7,)), "ConvSpec.spatial: expected (H, W) or (D, H, W), got (7,)"),
    (dict(filter=(3, 3, 3)), "ConvSpec.filter: expected a tuple of 2 ints (one per spatial dimension), got (3, 3, 3)"),
    (dict(stride=(0, 1)), "ConvSpec.stride: expected ints >= 1, got (0, 1)"),
    (dict(pad=(-1, 0)), "ConvSpec.pad: expected ints >= 0, got (-1, 0)"),
    (dict(groups=3), "ConvSpec.groups: expected a divisor of both c (8) and k (4), got 3"),
    (dict(layout="NWHC"), "ConvSpec.layout: expected one of NHWC, NCHW, got 'NWHC'"),
    (dict(dtype="f64"), "ConvSpec.dtype: expected one of f32, f16, bf16, got 'f64'"),
    (dict(filter=(9, 3)), "ConvSpec.filter: expected a dilated filter that fits the padded input in dimension 0 (output size -1), got (9, 3)"),
    (dict(bias_relu=1), "ConvSpec.bias_relu: expected True or False, got 1"),
])
def test_bad_field_is_named(kwargs, message):
    base = dict(n=1, c=8, k=4, spatial=(7, 9), filter=(3, 3))
    with pytest.raises(SpecError) as err:
        ConvSpec(**{**base, **kwargs})
    assert str(err.value) == message


def test_each_family_has_at_least_30_cases_per_flavor_across_the_four_archs():
    for cases in (direct_cases(), img2col_cases()):
        assert len(cases) >= 30
        assert {c.arch for c in cases} == {"gfx942", "gfx950", "gfx1201", "gfx1250"}
        # llvm20 cannot lower gfx1250: at least 30 still lower there.
        assert sum(c.arch != "gfx1250" for c in cases) >= 30


def test_families_cover_depthwise_and_3d():
    specs = [c.spec for c in direct_cases()]
    assert any(s.groups == s.c == s.k for s in specs)
    assert any(s.dims == 3 for s in specs) and any(s.dims == 3 for s in (c.spec for c in img2col_cases()))
