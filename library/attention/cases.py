"""The cases of the attention family: problems x the archs with a tile (attention.tiles).

Small problems (the interpreter runs every one) that together cover what
issue 20 asks of the numbers: head dims 64 and 128; causal and not, with and
without a padding mask; seq_q != seq_k; sequence lengths that are no
multiple of any block (query blocks and key blocks cut short); grouped-query
and multi-query heads; f16 and bf16; both layouts; the lse output; a scale
given and the default. Case ids are stable: they name golden entries.
"""

from attention.tiles import TILES, spec_for
from family.family import Case

# The archs of the tile table, in its order.
ARCHS = tuple(dict.fromkeys(arch for arch, _ in TILES))

# name -> (batch, heads, kv_heads, seq_q, seq_k, head_dim, dtype, options).
PROBLEMS = {
    "attn_f16_d64": (1, 2, 2, 64, 64, 64, "f16", {}),
    "attn_bf16_d128_causal_gqa_bhsd_lse": (
        1,
        4,
        2,
        80,
        144,
        128,
        "bf16",
        {"causal": True, "layout": "bhsd", "lse": True},
    ),
    "attn_f16_d64_mqa_padding": (2, 2, 1, 50, 100, 64, "f16", {"mask": "padding", "scale": "0.1"}),
    "attn_f16_d128_causal_padding_lse": (
        1,
        2,
        2,
        130,
        130,
        128,
        "f16",
        {"causal": True, "mask": "padding", "lse": True},
    ),
    "attn_bf16_d64_bhsd_lse": (1, 1, 1, 33, 200, 64, "bf16", {"layout": "bhsd", "lse": True}),
    # catalog/llama_attention.json's kernel (causal GQA at d128, BSHD, no lse), on a short sequence.
    "attn_f16_d128_causal_gqa": (1, 8, 2, 96, 160, 128, "f16", {"causal": True}),
}


def cases():
    return tuple(
        Case(f"{name}_{arch}", arch, spec_for(arch, batch, heads, kv_heads, seq_q, seq_k, d, dtype, **options))
        for name, (batch, heads, kv_heads, seq_q, seq_k, d, dtype, options) in PROBLEMS.items()
        for arch in ARCHS
    )
