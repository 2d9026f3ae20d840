"""Reading a problems file: good entries become Problems, each bad one is one
error naming its index and field, and the specs normalise JSON and numpy."""

import json

import numpy as np
import pytest

from conv.spec import ConvSpec
from planner.problems import MAX_NESTING, FileError, parse, read

GOOD_CONV = {"op": "conv_fwd", "n": 1, "c": 64, "k": 64, "spatial": [56, 56], "filter": [3, 3], "pad": [1, 1]}
GOOD_GEMM = {"op": "gemm", "m": 128, "n": 768, "k": 768, "dtype": "f16", "layout_b": "col"}


def test_one_bad_entry_among_good_ones_is_named_and_the_others_read():
    bad = dict(GOOD_CONV, stride=[0, 1])
    problems, errors = read({"problems": [GOOD_CONV, GOOD_GEMM, bad, dict(GOOD_CONV, k=128)]})
    assert [p.index for p in problems] == [0, 1, 3]
    assert [str(e) for e in errors] == ["problems[2].stride: expected ints >= 1, got (0, 1)"]
    assert errors[0].index == 2 and errors[0].field == "stride"


@pytest.mark.parametrize(
    "entry,message",
    [
        (
            {"op": "conv_bwd"},
            "problems[0].op: expected one of conv_fwd, conv_dgrad, conv_wgrad, gemm, attention, pool, softmax, "
            "layernorm, rmsnorm, "
            "got 'conv_bwd'",
        ),
        ([1, 2], 'problems[0]: expected a JSON object with an "op" and its fields, got [1, 2]'),
        (dict(GOOD_CONV, spatial=[56]), "problems[0].spatial: expected (H, W) or (D, H, W), got (56,)"),
        (dict(GOOD_CONV, strides=[2, 2]), "problems[0].strides: expected one of the fields"),
        (
            {k: v for k, v in GOOD_CONV.items() if k != "c"},
            "problems[0].c: expected a value (the field is required), got none",
        ),
        (dict(GOOD_GEMM, lda=3), "problems[0].lda: expected one of the fields op, name, m, n, k, dtype, out"),
        ({"op": "gemm", "m": 1, "n": 2}, "problems[0].k: expected a value (the field is required), got none"),
        ({"op": "softmax", "rows": 8}, "problems[0].dim: expected a value (the field is required), got none"),
        (
            {"op": "softmax", "rows": 8, "dim": 8, "eps": 1e-5},
            "problems[0].eps: expected one of the fields op, name, rows, dim, dtype, mask, scale",
        ),
        (dict(GOOD_GEMM, name="3x"), "problems[0].name: expected letters, digits and _"),
    ],
)
def test_each_bad_field_is_named(entry, message):
    problems, errors = read({"problems": [entry]})
    assert problems == [] and len(errors) == 1
    assert str(errors[0]).startswith(message)


def test_optional_fields_take_the_spec_defaults_and_lists_and_numpy_ints_normalise():
    problems, errors = read(
        {
            "problems": [
                GOOD_CONV,
                {
                    "op": "conv_fwd",
                    "n": np.int64(1),
                    "c": np.int32(64),
                    "k": 64,
                    "spatial": (56, np.int16(56)),
                    "filter": [3, 3],
                    "pad": [1, 1],
                },
            ]
        }
    )
    assert errors[0].field == "name"  # the same problem twice: the same made-up name
    assert problems[0].spec == ConvSpec(
        1, 64, 64, (56, 56), (3, 3), pad=(1, 1), stride=(1, 1), dilation=(1, 1), groups=1, layout="NHWC", dtype="f16"
    )


def test_names_come_from_the_entry_or_its_fields_and_must_be_unique():
    problems, errors = read(
        {"problems": [dict(GOOD_CONV, name="res2a_branch2b"), GOOD_CONV, GOOD_GEMM, dict(GOOD_GEMM, dtype="bf16")]}
    )
    assert errors == []
    assert [p.name for p in problems] == [
        "res2a_branch2b",
        "conv_fwd_n1c64_56x56_k64_f3x3_p1x1_nhwc_f16",
        "gemm_128x768x768_f16_rc_f16",
        "gemm_128x768x768_bf16_rc_bf16",
    ]
    _, errors = read({"problems": [dict(GOOD_CONV, name="x"), dict(GOOD_GEMM, name="x")]})
    assert [str(e) for e in errors] == [
        "problems[1].name: expected a name no other entry has, got 'x' (problems[0] has it too; give one a \"name\")"
    ]


def test_the_epilogue_fields_reach_the_specs_and_a_numeric_scale_its_shortest_decimal():
    entries = [
        dict(GOOD_CONV, bias=True, activation="relu", residual="before_activation"),
        dict(GOOD_CONV, activation="relu6", scale=1),
        dict(GOOD_GEMM, bias=True, activation="gelu_erf", scale=0.125),
        dict(GOOD_GEMM, residual="after_activation", scale="2.5"),
    ]
    problems, errors = read({"problems": entries})
    assert errors == []
    assert (problems[0].spec.bias, problems[0].spec.activation, problems[0].spec.residual) == (
        True,
        "relu",
        "before_activation",
    )
    assert problems[1].spec.scale == "1" and problems[2].spec["scale"] == "0.125"
    assert [p.name for p in problems] == [
        "conv_fwd_n1c64_56x56_k64_f3x3_p1x1_nhwc_f16_bias_relu_residual_pre",
        "conv_fwd_n1c64_56x56_k64_f3x3_p1x1_nhwc_f16_relu6",
        "gemm_128x768x768_f16_rc_f16_bias_gelu_erf_scale0_125",
        "gemm_128x768x768_f16_rc_f16_residual_post_scale2_5",
    ]
    _, errors = read({"problems": [dict(GOOD_CONV, scale=-1)]})
    assert [str(e) for e in errors] == [
        "problems[0].scale: expected a positive decimal string such as '0.5' (finite and above 0 as f32), got '-1'",
    ]


def test_gemm_out_defaults_to_the_input_type_and_f32_for_fp8():
    problems, _ = read({"problems": [GOOD_GEMM, dict(GOOD_GEMM, dtype="fp8")]})
    assert [p.spec["out"] for p in problems] == ["f16", "f32"]


def test_norms_take_their_eps_and_f16_by_default_and_an_eps_number_becomes_its_decimal():
    entries = [
        {"op": "layernorm", "rows": 128, "dim": 768},
        {"op": "rmsnorm", "rows": 4, "dim": 4096, "dtype": "bf16", "eps": 1e-05, "residual": True},
        {"op": "rmsnorm", "rows": 4, "dim": 771, "affine": False},
    ]
    problems, errors = read({"problems": entries})
    assert errors == []
    assert [(p.spec["dtype"], p.spec["eps"]) for p in problems] == [("f16", "1e-5"), ("bf16", "1e-05"), ("f16", "1e-6")]
    assert [p.name for p in problems] == [
        "layernorm_128x768_f16",
        "rmsnorm_4x4096_bf16_residual",
        "rmsnorm_4x771_f16_plain",
    ]
    problems, errors = read({"problems": [{"op": "layernorm", "rows": 1, "dim": 8, "kind": "rmsnorm"}]})
    assert [str(e) for e in errors] == [
        "problems[0].kind: expected one of the fields op, name, rows, dim, dtype, eps, affine, residual, "
        "residual_out, got the unknown field 'kind'"
    ]


@pytest.mark.parametrize(
    "doc,got",
    [
        ([], "got an array"),
        ({}, "got an empty object"),
        ({"problem": []}, 'got an object with the key "problem" and no "problems"'),
        ({"problems": {}}, 'got "problems" holding an object, not an array'),
        ({"problems": None}, 'got "problems" holding null, not an array'),
        ({"problems": [], "extra": 1, "more": 2}, 'got the keys "extra", "more" beside "problems"'),
    ],
)
def test_a_file_that_is_not_a_problems_object_is_refused_whole_saying_what_it_got(doc, got):
    with pytest.raises(FileError) as e:
        read(doc)
    assert str(e.value) == f'expected a JSON object {{"problems": [entry, ...]}} and nothing else, {got}'


def test_a_problems_file_parses_as_json():
    assert parse(json.dumps({"problems": [GOOD_GEMM]}).encode()) == {"problems": [GOOD_GEMM]}


def test_a_file_nested_100000_deep_is_one_error_not_a_recursion_error():
    deep = b"[" * 100_000 + b"]" * 100_000
    with pytest.raises(FileError) as e:
        parse(b'{"problems": ' + deep + b"}")
    allowed = f"arrays and objects nested at most {MAX_NESTING} deep (a problems file needs 4)"
    assert str(e.value) == f"expected {allowed}, got 100001 levels"
    # Brackets inside strings are not nesting: a name of 40 brackets reads.
    named = dict(GOOD_GEMM, name="[{" * 20)
    assert parse(json.dumps({"problems": [named]}).encode()) == {"problems": [named]}


def test_a_file_that_is_not_utf8_is_one_error_naming_the_byte():
    data = json.dumps({"problems": [dict(GOOD_GEMM, name="caf\u00e9")]}, ensure_ascii=False).encode("latin-1")
    with pytest.raises(FileError) as e:
        parse(data)
    at = data.index(b"\xe9")
    assert str(e.value) == f"expected UTF-8 text, got the byte 0xe9 at byte {at} (line 1); save the file as UTF-8"


def test_text_that_is_not_json_names_the_line_and_column():
    with pytest.raises(FileError) as e:
        parse(b'{"problems": [\n  }')
    assert str(e.value) == "expected JSON text, got an error at line 2 column 3: Expecting value"


@pytest.mark.parametrize(
    "text,where",
    [
        ('{"problems": [], "problems": []}', "the top-level object"),
        ('{"problems": [{"op": "gemm", "m": 1}, {"op": "gemm", "m": 64, "n": 64, "m": 128}]}', "problems[1]"),
        ('{"problems": [{"op": "conv_fwd", "spatial": [{"a": 1, "a": 1}]}]}', "problems[0].spatial[0]"),
    ],
)
def test_a_key_given_twice_is_refused_naming_the_key_and_where(text, where):
    key = "a" if "spatial" in text else "problems" if where.startswith("the top") else "m"
    with pytest.raises(FileError) as e:
        parse(text.encode())
    fix = "keep one (JSON readers differ on which one wins)"
    assert str(e.value) == f'expected each key once in an object, got "{key}" twice in {where}; {fix}'


def test_the_example_sets_read_without_error():
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    for name, count in (("resnet50", 56), ("bert_base", 9), ("mobilenet_v2", 54), ("llama_attention", 1)):
        with open(os.path.join(here, "..", "..", "catalog", name + ".json")) as f:
            problems, errors = read(json.load(f))
        assert errors == [] and len(problems) == count, name


POOL = {"op": "pool", "n": 1, "c": 64, "spatial": [112, 112], "kind": "max", "window": [3, 3], "stride": [2, 2]}


def test_pool_entries_become_pool_specs_with_names():
    entries = [
        dict(POOL, pad=[1, 1]),
        {"op": "pool", "n": 1, "c": 2048, "spatial": [7, 7], "kind": "avg", "global": True},
        dict(POOL, kind="avg", pad=[0, 1], pad_end=[1, 0], count_pad=True, layout="NCHW", dtype="f32"),
    ]
    problems, errors = read({"problems": entries})
    assert errors == []
    assert [p.name for p in problems] == [
        "pool_max_n1c64_112x112_w3x3_s2x2_p1x1_nhwc_f16",
        "pool_avg_n1c2048_7x7_global_nhwc_f16",
        "pool_avg_n1c64_112x112_w3x3_s2x2_p0x1e1x0_count_pad_nchw_f32",
    ]
    assert problems[0].spec.output == (56, 56) and problems[0].spec.pad_end == (1, 1)
    glob = problems[1].spec
    assert (glob.window, glob.stride, glob.pad, glob.output) == ((7, 7), (7, 7), (0, 0), (1, 1))


@pytest.mark.parametrize(
    "entry,message",
    [
        (dict(POOL, window=None), "problems[0].window: expected a list of 2 ints"),
        (
            {k: v for k, v in POOL.items() if k != "window"},
            'problems[0].window: expected a value (required unless "global": true)',
        ),
        (dict(POOL, kind="avg", **{"global": True}), 'problems[0].window: expected no window with "global": true'),
        (
            {"op": "pool", "n": 1, "c": 8, "spatial": [7, 7], "kind": "max", "global": True},
            'problems[0].kind: expected "avg" with "global": true',
        ),
        (dict(POOL, **{"global": 1}), "problems[0].global: expected true or false, got 1"),
        (dict(POOL, count_pad=True), "problems[0].count_pad: expected False for a max pool"),
        (dict(POOL, pad=[3, 0]), "problems[0].pad: expected each below the window [3, 3]"),
        (dict(POOL, dilation=[1, 1]), "problems[0].dilation: expected one of the fields op, name, n, c, spatial, kind"),
    ],
)
def test_bad_pool_entries_name_the_field(entry, message):
    problems, errors = read({"problems": [entry]})
    assert problems == [] and len(errors) == 1
    assert str(errors[0]).startswith(message), str(errors[0])


@pytest.mark.parametrize(
    "fields,name,scale",
    [
        ({}, "softmax_128x512_f16", None),
        ({"dtype": "bf16", "mask": True, "scale": 0.125}, "softmax_128x512_bf16_mask_scale0p125", "0.125"),
        ({"scale": 2}, "softmax_128x512_f16_scale2", "2"),
        ({"scale": "0.5"}, "softmax_128x512_f16_scale0p5", "0.5"),
    ],
)
def test_a_softmax_scale_number_becomes_its_shortest_decimal_and_names_the_entry(fields, name, scale):
    (problem,), errors = read({"problems": [{"op": "softmax", "rows": 128, "dim": 512, **fields}]})
    assert errors == [] and problem.name == name
    assert problem.spec.get("scale") == scale
