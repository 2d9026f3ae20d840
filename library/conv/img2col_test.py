"""conv_img2col's refusal of grouped layers: its own error type (a conv
SpecError and a family Refusal) naming the field and the families that take
them, recorded by the emit gate as an expected rejection, and the same
class and facts from the C++ engine. And the numeric problem it shares with
conv_direct_fwd (common.numeric_check; direct_fwd_test checks that family's)
starts every output as NaN, so an element the kernel never writes fails the
check."""

import dataclasses

import numpy as np
import pytest

import rocke_library_engine
from conv import img2col
from conv.spec import ConvSpec, SpecError
from family import emit
from family.engines import lower_family
from family.family import Case, Family, Refusal

GROUPED = ConvSpec(1, 8, 8, (6, 6), (3, 3), groups=4)
MESSAGE = "conv_img2col: groups=4 is not supported (one GEMM needs groups=1); conv_direct_fwd or conv_igemm_fwd take grouped layers"


def test_a_grouped_layer_is_refused_by_name():
    with pytest.raises(img2col.Img2colSpecError) as err:
        img2col.build(Case("g4_gfx942", "gfx942", GROUPED))
    assert str(err.value) == MESSAGE
    assert isinstance(err.value, SpecError) and isinstance(err.value, Refusal)


def test_the_emit_gate_records_the_refusal_and_emits_the_rest():
    fam = img2col.FAMILY
    ok = fam.cases[0]
    refused = Case("g4_gfx942", "gfx942", GROUPED)
    irs, rks, entries = emit.emit(
        Family(fam.name, (ok, refused), fam.build, fam.numeric_check), [ok, refused], "llvm22"
    )
    assert sorted(irs) == sorted(rks) == [ok.id]
    lines = [e.line() for e in entries]
    assert "reject g4_gfx942 arch=gfx942 error=Img2colSpecError" in lines and len(lines) == 2


def test_the_same_layer_ungrouped_builds():
    assert (
        img2col.build(Case("g1_gfx942", "gfx942", dataclasses.replace(GROUPED, groups=1))).name
        == "conv_img2col_g1_gfx942"
    )


def test_the_refusal_is_the_same_class_and_facts_in_both_engines():
    # Through the C++ engine's error mapping, the C++ refusal is Img2colSpecError too,
    # naming groups in each engine's words.
    case = Case("g4_gfx942", "gfx942", GROUPED)
    got = {}
    for engine in ("python", "cpp"):
        with pytest.raises(img2col.Img2colSpecError) as err:
            lower_family(img2col.FAMILY, case, "llvm22", engine=engine, cpp=rocke_library_engine)
        assert "groups" in str(err.value) and "\n" not in str(err.value), engine
        got[engine] = (type(err.value), err.value.facts())
    assert got["cpp"] == got["python"] == (img2col.Img2colSpecError, ["Img2colSpecError", "ConvSpec.groups", 4, [1]])


def test_unwritten_outputs_fail_the_check():
    # An output starting as 0 would pass unwritten wherever the answer is 0 (a relu clips about half).
    for dtype in ("f32", "f16", "bf16"):
        case = next(c for c in img2col.FAMILY.cases if c.spec.dtype == dtype)
        p = img2col.FAMILY.numeric_check(case, np.random.default_rng(1))
        assert np.isnan(p.decode(p.args[2])).all(), case.id
        with pytest.raises(AssertionError, match=rf"^{case.id}: argument 2: {p.expected[2].values.size} of "):
            p.check(case.id)
