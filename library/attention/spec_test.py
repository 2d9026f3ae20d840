"""AttentionSpec validation: every bad field is named, with the value and what is allowed."""

import json

import numpy as np
import pytest

from attention.spec import AttentionSpec, SpecError

BASE = dict(
    batch=2,
    heads=8,
    kv_heads=2,
    seq_q=100,
    seq_k=130,
    head_dim=64,
    dtype="f16",
    mma="16x16x16",
    block_m=128,
    block_n=64,
    waves=4,
)


@pytest.mark.parametrize(
    "fields,message",
    [
        (dict(batch=0), "AttentionSpec.batch: expected a positive int, got 0"),
        (dict(seq_k=2.0), "AttentionSpec.seq_k: expected a positive int, got 2.0"),
        (dict(waves=True), "AttentionSpec.waves: expected a positive int, got True"),
        (
            dict(seq_q=2**31),
            "AttentionSpec.seq_q: expected a positive int at most 2147483647 (2**31 - 1: an i32 in the kernel), got 2147483648",
        ),
        (dict(dtype="f32"), "AttentionSpec.dtype: expected one of f16, bf16, got 'f32'"),
        (dict(layout="sbhd"), "AttentionSpec.layout: expected one of bshd, bhsd, got 'sbhd'"),
        (dict(mask="causal"), "AttentionSpec.mask: expected one of none, padding, got 'causal'"),
        (dict(causal=1), "AttentionSpec.causal: expected True or False, got 1"),
        (dict(lse="yes"), "AttentionSpec.lse: expected True or False, got 'yes'"),
        (
            dict(head_dim=96),
            "AttentionSpec.head_dim: expected one of 64, 128 (the head dims the kernel tiles), got 96",
        ),
        (
            dict(head_dim=256),
            "AttentionSpec.head_dim: expected one of 64, 128 (the head dims the kernel tiles), got 256",
        ),
        (dict(kv_heads=3), "AttentionSpec.kv_heads: expected a divisor of heads (8), got 3"),
        (
            dict(scale="1e-2x"),
            "AttentionSpec.scale: expected '1/sqrt(head_dim)' or a positive decimal such as '0.125', got '1e-2x'",
        ),
        (
            dict(scale="0"),
            "AttentionSpec.scale: expected '1/sqrt(head_dim)' or a positive decimal such as '0.125', got '0'",
        ),
        (
            dict(scale="1e39"),
            "AttentionSpec.scale: expected '1/sqrt(head_dim)' or a positive decimal such as '0.125', got '1e39'",
        ),
        (
            dict(scale=0.125),
            "AttentionSpec.scale: expected '1/sqrt(head_dim)' or a positive decimal such as '0.125', got 0.125",
        ),
        (
            dict(mma="16x16x8"),
            "AttentionSpec.mma: expected a matrix-core shape of f16 inputs: one of 16x16x16, 16x16x32, 32x32x8, 32x32x16, got '16x16x8'",
        ),
        (
            dict(mma="32x32x8"),
            "AttentionSpec.mma: expected a 16x16xK shape (a score tile is one query's keys per lane group), got '32x32x8'",
        ),
        (dict(block_m=96), "AttentionSpec.block_m: expected a multiple of waves (4) x the mma's M (16) = 64, got 96"),
        (dict(block_n=40), "AttentionSpec.block_n: expected a multiple of the mma's N and K (16) = 16, got 40"),
        (
            dict(batch=64, seq_k=2**20),
            "AttentionSpec.seq_k: expected every tensor at most 2147483647 bytes (2**31 - 1: the kernel's offsets are 32-bit), got K of 17179869184 bytes; use seq_k at most 131071",
        ),
    ],
)
def test_bad_field_is_named(fields, message):
    with pytest.raises(SpecError) as err:
        AttentionSpec.from_json({**BASE, **fields})
    assert str(err.value) == message and err.value.field == message.split(":")[0]


def test_defaults_scale_shapes_and_grid():
    s = AttentionSpec(**BASE)
    assert (s.causal, s.mask, s.layout, s.lse) == (False, "none", "bshd", False)
    assert s.scale_value == 0.125 and s.op == "mma_16x16x16_f16_f32"
    assert AttentionSpec(**{**BASE, "head_dim": 128}).scale_value == np.float32(1 / np.sqrt(128))
    assert AttentionSpec(**BASE, scale="0.1").scale_value == np.float32(0.1)
    assert s.shape(s.seq_q, s.heads) == (2, 100, 8, 64) and s.grid() == (1, 8, 2)
    t = AttentionSpec(**{**BASE, "seq_q": 129}, layout="bhsd")
    assert t.shape(t.seq_k, t.kv_heads) == (2, 2, 130, 64) and t.grid() == (2, 8, 2)


def test_to_json_reads_back_equal_and_numpy_ints_make_the_equal_spec():
    s = AttentionSpec(**BASE, causal=True, mask="padding", scale="0.5", layout="bhsd", lse=True)
    back = AttentionSpec.from_json(json.loads(json.dumps(s.to_json())))
    assert back == s and hash(back) == hash(s) and list(s.to_json())[:3] == ["batch", "heads", "kv_heads"]
    assert AttentionSpec(**{**BASE, "seq_q": np.int64(100)}) == AttentionSpec(**BASE)


def test_unknown_field_is_named():
    with pytest.raises(
        SpecError,
        match=r"^AttentionSpec.window: expected one of the fields batch, heads, .*got the unknown field 'window'",
    ):
        AttentionSpec.from_json({**BASE, "window": 4})
