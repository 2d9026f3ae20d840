"""The tile each arch runs conv_igemm_fwd with, and the spec that carries it.

An implicit-GEMM convolution is a GEMM of output pixels (N x output spatial)
by output channels per group, so its shape differs from a square GEMM's:
rows are many (a ResNet-50 layer has 1,568 to 401,408 output pixels at batch 32)
and columns few (64 to 512 filters, a few per group in ResNeXt). The table
keeps library/gemm's 32-deep k step and matrix op per arch, with a
128 x 64 block: a K=64 layer fills its columns, and the 128 pixel rows
reuse each B tile twice as often as they reuse A. CDNA runs 4 waves of 64
lanes (2 x 2), RDNA4 and gfx1250 8 waves of 32 (4 x 2).

IgemmSpec is a ConvSpec (the problem) with this tile; it is JSON as well
(the case lists both engines read). The rows are data, igemm_tiles.json
beside this file, in the order errors list them; the C++ mirror
(library/conv/cpp) reads the same file.
"""

import dataclasses
import json
import os

from arch import arch as archs
from arch.mma_forms import FORMS
from conv.spec import ConvSpec, SpecError, check_tensor_bytes
from family.cases_json import plain_int
from family.family import Refusal


class IgemmSpecError(SpecError, Refusal):
    """conv_igemm_fwd cannot take this spec: names the field, what it takes,
    and the family that can. Raised by build() (an arch without the tile's
    matrix op) it is an expected rejection for the gates; raised by the spec
    (a bad tile field) it stops the case list being read."""


@dataclasses.dataclass(frozen=True)
class Tile:
    mma: str  # "MxNxK"
    block_m: int
    block_n: int
    block_k: int
    waves_m: int
    waves_n: int


PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "igemm_tiles.json")


def load_tiles(path):
    """arch -> Tile, in the file's order: a tile table (igemm_tiles.json, wgrad_tiles.json)."""
    with open(path, encoding="utf-8") as f:
        rows = json.load(f)["tiles"]
    fields = [f.name for f in dataclasses.fields(Tile)]
    table = {}
    for row in rows:
        if row["arch"] in table:
            raise ValueError(f"{path}: expected one row per arch, got a second {row['arch']}")
        table[row["arch"]] = Tile(**{name: row[name] for name in fields})
    return table


# arch -> Tile, for both f16 and bf16 (every arch has the same ops for both).
TILES = load_tiles(PATH)

DTYPES = ("f16", "bf16")
# The tile's sizes are i32 in the kernel (and int in the C++ engine's tile
# config): each at most MAX_TILE, so no product of two passes 64 bits either.
MAX_TILE = 2**31 - 1
_TILE_FIELDS = tuple(f.name for f in dataclasses.fields(Tile))


@dataclasses.dataclass(frozen=True)
class IgemmSpec:
    conv: ConvSpec
    mma: str
    block_m: int
    block_n: int
    block_k: int
    waves_m: int
    waves_n: int
    # Ways the reduction is split (split-K): 1 writes the output; S > 1 writes
    # S f32 partial sums to a workspace (k_slices, conv_fwd_split_k_reduce).
    split_k: int = 1

    def __post_init__(self):
        if isinstance(self.conv, dict):
            object.__setattr__(self, "conv", ConvSpec.from_json(self.conv))
        if not isinstance(self.conv, ConvSpec):
            raise IgemmSpecError(f"IgemmSpec.conv: expected a ConvSpec, got {self.conv!r}", "IgemmSpec.conv", self.conv)
        if self.conv.dtype not in DTYPES:
            raise IgemmSpecError(
                f"IgemmSpec.conv.dtype: expected one of {', '.join(DTYPES)} (matrix cores), got {self.conv.dtype!r}; conv_direct_fwd and conv_img2col compute an f32 forward convolution; no family computes an f32 data gradient",
                "IgemmSpec.conv.dtype",
                self.conv.dtype,
                DTYPES,
            )
        for field in _TILE_FIELDS[1:]:
            value = plain_int(getattr(self, field))
            object.__setattr__(self, field, value)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise IgemmSpecError(
                    f"IgemmSpec.{field}: expected a positive int, got {value!r}", f"IgemmSpec.{field}", value
                )
            if value > MAX_TILE:
                raise IgemmSpecError(
                    f"IgemmSpec.{field}: expected a positive int at most {MAX_TILE} (2**31 - 1: a tile size is an i32), got {value!r}",
                    f"IgemmSpec.{field}",
                    value,
                    MAX_TILE,
                )
        ops = sorted(
            {
                "x".join(map(str, (f.shape.m, f.shape.n, f.shape.k)))
                for f in FORMS.values()
                if (f.shape.a, f.shape.c) == (self.conv.dtype, "f32")
            }
        )
        if self.mma not in ops:
            raise IgemmSpecError(
                f"IgemmSpec.mma: expected a matrix-core shape of {self.conv.dtype} inputs ({', '.join(ops)}), got {self.mma!r}",
                "IgemmSpec.mma",
                self.mma,
                ops,
            )
        split = plain_int(self.split_k)
        object.__setattr__(self, "split_k", split)
        steps = self.k_steps
        if not isinstance(split, int) or isinstance(split, bool) or not 1 <= split <= steps:
            raise IgemmSpecError(
                f"IgemmSpec.split_k: expected an int from 1 to {steps} (the reduction's {self.gemm[2]} in k steps of {self.block_k}: "
                f"each split reduces whole steps), got {split!r}; take a split in that range (conv.split_k.select_split_k_fwd picks one)",
                "IgemmSpec.split_k",
                split,
                steps,
            )
        if split > 1:
            check_tensor_bytes(
                "IgemmSpec.split_k",
                "f32 workspace",
                (split, *self.conv.output_shape()),
                4,
                "take a smaller split",
            )

    @property
    def op(self):
        """The matrix op id (platform/arch/mma_forms.json)."""
        return f"mma_{self.mma}_{self.conv.dtype}_f32"

    @property
    def gemm(self):
        """(M, N, K) of each group's GEMM: output pixels, filters per group, C/groups x filter taps."""
        c = self.conv
        pixels, taps = c.n, 1
        for o, f in zip(c.output, c.filter):
            pixels, taps = pixels * o, taps * f
        return pixels, c.k_per_group, c.c_per_group * taps

    @property
    def k_steps(self):
        """The reduction's k steps of block_k (the last one may be partial)."""
        return -(-self.gemm[2] // self.block_k)

    def k_slices(self):
        """[begin, end) of the reduction each split owns, in split order:
        contiguous runs of whole k steps, split s taking steps
        [s * steps // S, (s + 1) * steps // S) (never empty, as S <= steps),
        the last one ending at the reduction's end."""
        k, steps, split = self.gemm[2], self.k_steps, self.split_k
        return [
            (s * steps // split * self.block_k, min((s + 1) * steps // split * self.block_k, k)) for s in range(split)
        ]

    def grid(self):
        """Workgroups: filter blocks across x, pixel blocks across y, groups x splits across z (z = split x groups + group)."""
        m, n, _ = self.gemm
        return (-(-n // self.block_n), -(-m // self.block_m), self.conv.groups * self.split_k)

    def to_json(self):
        """The conv and the tile; split_k only when the spec splits (the JSON of an unsplit spec predates the field)."""
        split = {"split_k": self.split_k} if self.split_k != 1 else {}
        return {"conv": self.conv.to_json(), **{f: getattr(self, f) for f in _TILE_FIELDS}, **split}

    @classmethod
    def from_json(cls, obj):
        fields = ("conv",) + _TILE_FIELDS
        if not isinstance(obj, dict) or sorted(set(obj) - {"split_k"}) != sorted(fields):
            raise IgemmSpecError(
                f"IgemmSpec: expected a JSON object with exactly the fields {', '.join(fields)} (and optionally split_k), got {obj!r}",
                "IgemmSpec",
                obj,
                [*fields, "split_k"],
            )
        return cls(**obj)


def form(spec, arch):
    """The matrix-core form of `spec`'s op on `arch` (arch.mma_forms): the
    kernel's wave size and lane layouts; IgemmSpecError (a Refusal) where the
    arch lacks the op."""
    found = FORMS.get((spec.op, archs.get(arch).generation))
    if found is None or arch not in found.archs:
        raise IgemmSpecError(
            f"IgemmSpec.mma: expected a matrix-core shape {arch} has for {spec.conv.dtype}, got {spec.mma!r}; take {arch}'s tile from library/conv/igemm_tiles.json",
            "IgemmSpec.mma",
            spec.mma,
        )
    return found


def spec_for(arch, conv):
    """The IgemmSpec of `conv` on `arch`, with the table's tile."""
    if arch not in TILES:
        raise IgemmSpecError(
            f"conv_igemm_fwd tiles: expected an arch with a tile ({', '.join(TILES)}), got {arch!r}; add a row to library/conv/igemm_tiles.json",
            "conv_igemm_fwd tiles",
            arch,
            list(TILES),
        )
    return IgemmSpec(conv, **dataclasses.asdict(TILES[arch]))
