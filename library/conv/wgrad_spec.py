"""conv_igemm_wgrad's spec and tiles: the problem, the tile, and the split.

A weight gradient is a GEMM per group of filters (K/groups rows) by the
group's channels x filter taps (columns), reduced over N x output pixels
(conv.igemm_wgrad says how). Its shape is the forward's turned around: the
rows and columns are the weights, small (64 x 576 for ResNet-50's res2
3x3), and the reduction is the whole batch's pixels, long (100,352 at
batch 32); the reduction is what split-K (conv.split_k.select_split_k_wgrad)
cuts. Each arch keeps conv_igemm_fwd's matrix op and 32-deep k step; CDNA
runs 4 waves of 64 lanes (2 x 2), RDNA4 and gfx1250 8 waves of 32 (4 x 2).

The block is the largest the weights fill (tile_for, from the "blocks"
rows of wgrad_tiles.json, first match): 128 x 128 when M = K/groups and
N = C/groups x taps are both 128 or more, 64 x 256 when N is 256 or more,
256 x 64 when M is 256 or more (a 1x1 layer from 64 channels to 256
filters), else the arch's 64 x 64 ("tiles" rows). A bigger block spreads
a k step's copy and address work over more matrix ops
(docs/figures/conv-isa.md counts the main loop's non-matrix instructions
per block), at the price of occupancy (more accumulators), which the long
reduction and the split's workgroups make up for.

WgradSpec is JSON as well (the case lists both engines read):

    {"igemm": IgemmSpec (the ConvSpec and the tile), "split": S, "mode": M}

The IgemmSpec is validated as conv_igemm_fwd's (dtype, sizes, tile, op),
and its ConvSpec must have no epilogue (bias, activation, residual, scale):
the weight gradient through an activation needs its derivative on dy, which
this kernel never sees, so such a spec is refused by name rather than answered with the plain gradient. `split` and
`mode` say how the reduction is split:

    "none"       split 1: dw in the input type, one kernel.
    "two_stage"  split S >= 2: split s writes its f32 partial sums to
                 workspace[s * E : (s + 1) * E] (E = dw's elements, in dw's
                 layout); conv_fwd_split_k_reduce sums the S slices and
                 converts to the input type.
    "atomic"     split S >= 2: every split atomically adds its f32 partial
                 sums into an f32 dw, zeroed before the launch.
"""

import dataclasses
import json
import math
import os

from conv.igemm_tiles import DTYPES, IgemmSpec, load_tiles
from conv.spec import BELOW_2_63, MAX_INT64, SpecError, check_tensor_bytes
from family.cases_json import plain_int
from tile.tile import Tile

MODES = ("none", "two_stage", "atomic")
F32_BYTES = 4

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wgrad_tiles.json")
# arch -> Tile: its matrix op, waves and 64 x 64 block, the block of weights too small for BLOCKS'.
TILES = load_tiles(PATH)


@dataclasses.dataclass(frozen=True)
class Block:
    """A block the weights' GEMM takes when its M and N are at least min_m and min_n."""

    min_m: int
    min_n: int
    block_m: int
    block_n: int


def _load_blocks(path):
    with open(path, encoding="utf-8") as f:
        return tuple(Block(**row) for row in json.load(f)["blocks"])


# The bigger blocks, best first (the docstring says why), from the same file.
BLOCKS = _load_blocks(PATH)


def tile_for(arch, m, n):
    """The Tile of a wgrad GEMM of M x N weights on `arch` (an arch of TILES):
    the first of BLOCKS whose minimums m and n reach, else the arch's own."""
    base = TILES[arch]
    block = next((b for b in BLOCKS if m >= b.min_m and n >= b.min_n), None)
    if block is None:
        return base
    return Tile.of({**base.to_json(), "block_m": block.block_m, "block_n": block.block_n}, PATH, WgradSpecError)


class WgradSpecError(SpecError):
    """conv_igemm_wgrad cannot take this spec: names the field, what it takes, and the fix."""


@dataclasses.dataclass(frozen=True)
class WgradSpec:
    igemm: IgemmSpec
    split: int = 1
    mode: str = "none"

    def __post_init__(self):
        if isinstance(self.igemm, dict):
            object.__setattr__(self, "igemm", IgemmSpec.from_json(self.igemm))
        if not isinstance(self.igemm, IgemmSpec):
            raise WgradSpecError(
                f"WgradSpec.igemm: expected an IgemmSpec, got {self.igemm!r}", "WgradSpec.igemm", self.igemm
            )
        found = self.conv.epilogue_field()
        if found is not None:  # dw through an activation needs its derivative on dy, which this kernel never sees
            field, value, default = found
            raise WgradSpecError(
                f"ConvSpec.{field}: expected {default!r} (conv_igemm_wgrad computes the weight gradient of the "
                f"convolution alone), got {value!r}; apply the epilogue's derivative to dy and drop {field}",
                f"ConvSpec.{field}",
                value,
                [default],
            )
        split = plain_int(self.split)
        object.__setattr__(self, "split", split)
        if not isinstance(split, int) or isinstance(split, bool) or split < 1:
            raise WgradSpecError(f"WgradSpec.split: expected a positive int, got {split!r}", "WgradSpec.split", split)
        if split > MAX_INT64:
            raise WgradSpecError(
                f"WgradSpec.split: expected a positive int {BELOW_2_63}, got {split!r}",
                "WgradSpec.split",
                split,
                MAX_INT64,
            )
        if self.mode not in MODES:
            raise WgradSpecError(
                f"WgradSpec.mode: expected one of {', '.join(MODES)}, got {self.mode!r}",
                "WgradSpec.mode",
                self.mode,
                MODES,
            )
        if (self.mode == "none") != (split == 1):
            raise WgradSpecError(
                f"WgradSpec.split: expected 1 with mode 'none' and at least 2 with 'two_stage' or 'atomic', got split {split} with mode {self.mode!r}",
                "WgradSpec.split",
                [split, self.mode],
            )
        if split > self.steps:
            raise WgradSpecError(
                f"WgradSpec.split: expected at most {self.steps} (one {self.igemm.tile.block_k}-deep k step of the {self.gemm[2]}-long reduction per split), got {split}; take a smaller split",
                "WgradSpec.split",
                split,
                self.steps,
            )
        if self.mode != "none":  # the split modes' f32 output: dw, or the workspace of S of them
            what, shape = (
                ("f32 workspace", (split, *self.conv.weight_shape()))
                if self.mode == "two_stage"
                else ("f32 dw", self.conv.weight_shape())
            )
            check_tensor_bytes(
                "WgradSpec",
                what,
                shape,
                F32_BYTES,
                "take a smaller split" if self.mode == "two_stage" else "split the filters (k) into launches",
                "WgradSpec.split" if self.mode == "two_stage" else "WgradSpec.mode",
                WgradSpecError,
            )

    @property
    def conv(self):
        return self.igemm.conv

    @property
    def gemm(self):
        """(M, N, K) of each group's GEMM: filters per group, C/groups x filter taps, N x output pixels."""
        c = self.conv
        return c.k_per_group, c.c_per_group * math.prod(c.filter), c.n * math.prod(c.output)

    @property
    def steps(self):
        """T: the reduction's k steps (the last one partial), dealt out to the splits."""
        return -(-self.gemm[2] // self.igemm.tile.block_k)

    def rows(self, part):
        """(first, end) reduction rows split `part` owns: k steps part x T // S up to
        (part + 1) x T // S, so every split owns one step or more (S <= T) and
        they differ by one step at most."""
        step, reduction = self.igemm.tile.block_k, self.gemm[2]
        return step * (part * self.steps // self.split), min(step * ((part + 1) * self.steps // self.split), reduction)

    @property
    def elements(self):
        """E: the elements of dw, one slice of the two-stage workspace."""
        return math.prod(self.conv.weight_shape())

    @property
    def out_elements(self):
        """Elements of what the kernel writes: dw, or the S slices of the workspace."""
        return self.elements * (self.split if self.mode == "two_stage" else 1)

    @property
    def out_dtype(self):
        """The kernel's output type: the input type unsplit; f32 partial sums when split."""
        return self.conv.dtype if self.mode == "none" else "f32"

    def grid(self):
        """Workgroups: column blocks across x, filter blocks across y, groups x splits across z (group fastest)."""
        m, n, _ = self.gemm
        return (-(-n // self.igemm.tile.block_n), -(-m // self.igemm.tile.block_m), self.conv.groups * self.split)

    def to_json(self):
        return {"igemm": self.igemm.to_json(), "split": self.split, "mode": self.mode}

    @classmethod
    def from_json(cls, obj):
        fields = ("igemm", "split", "mode")
        if not isinstance(obj, dict) or sorted(obj) != sorted(fields):
            raise WgradSpecError(
                f"WgradSpec: expected a JSON object with exactly the fields {', '.join(fields)}, got {obj!r}",
                "WgradSpec",
                obj,
                fields,
            )
        return cls(**obj)


def spec_for(arch, conv, split=1, mode="none"):
    """The WgradSpec of `conv` on `arch`, with tile_for's tile."""
    if arch not in TILES:
        raise WgradSpecError(
            f"conv_igemm_wgrad tiles: expected an arch with a tile ({', '.join(TILES)}), got {arch!r}; add a row to library/conv/wgrad_tiles.json",
            "conv_igemm_wgrad tiles",
            arch,
            list(TILES),
        )
    if conv.dtype not in DTYPES:  # before IgemmSpec's own check, whose fix names forward families
        raise WgradSpecError(
            f"ConvSpec.dtype: expected one of {', '.join(DTYPES)} (conv_igemm_wgrad runs on matrix cores), got {conv.dtype!r}; no family computes an f32 weight gradient",
            "ConvSpec.dtype",
            conv.dtype,
            DTYPES,
        )
    m, n = conv.k_per_group, conv.c_per_group * math.prod(conv.filter)
    return WgradSpec(IgemmSpec(conv, tile_for(arch, m, n)), split, mode)
