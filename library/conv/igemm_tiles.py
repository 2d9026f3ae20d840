"""The tile each arch runs conv_igemm_fwd with, and the spec that carries it.

An implicit-GEMM convolution is a GEMM of output pixels (N x output spatial)
by output channels per group, so its shape differs from a square GEMM's:
rows are many (a ResNet-50 layer has 1,568 to 401,408 output pixels at batch 32)
and columns few (64 to 512 filters, a few per group in ResNeXt). The table
keeps library/gemm's 32-deep k step and matrix op per arch, with a
128 x 64 block: a K=64 layer fills its columns, and the 128 pixel rows
reuse each B tile twice as often as they reuse A. CDNA runs 4 waves of 64
lanes (2 x 2), RDNA4 and gfx1250 8 waves of 32 (4 x 2).

IgemmSpec is a ConvSpec (the problem) with a tile (tile.tile.Tile, its mma
narrowed to the shapes of the conv's input type); it is JSON as well (the
case lists both engines read), the tile's fields beside "conv". The rows
are data, igemm_tiles.json beside this file, in the order errors list them;
the C++ mirror (library/conv/cpp) reads the same file.
"""

import dataclasses
import json
import math
import os

from arch import arch as archs
from arch.mma_forms import FORMS
from conv import gather_address, row_runs
from conv.spec import ConvSpec, SpecError, check_tensor_bytes
from errors.errors import FieldError
from family.cases_json import plain_int
from family.family import Refusal
from tile import tile as tiles
from tile.tile import Tile


class IgemmSpecError(SpecError, Refusal):
    """conv_igemm_fwd cannot take this spec: names the field, what it takes,
    and the family that can. Raised by build() (an arch without the tile's
    matrix op) it is an expected rejection for the gates; raised by the spec
    (a bad tile field) it stops the case list being read."""


PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "igemm_tiles.json")


def load_tiles(path):
    """arch -> Tile, in the file's order: a tile table (igemm_tiles.json, wgrad_tiles.json)."""
    with open(path, encoding="utf-8") as f:
        rows = json.load(f)["tiles"]
    table = {}
    for i, row in enumerate(rows):
        if row["arch"] in table:
            raise ValueError(f"{path}: expected one row per arch, got a second {row['arch']}")
        table[row["arch"]] = Tile.of(row, f"{path}: tiles[{i}]", FieldError)
    return table


# arch -> Tile, for both f16 and bf16 (every arch has the same ops for both).
TILES = load_tiles(PATH)

DTYPES = ("f16", "bf16")


@dataclasses.dataclass(frozen=True)
class IgemmSpec:
    conv: ConvSpec
    tile: Tile
    # Ways the reduction is split (split-K): 1 writes the output; S > 1 writes
    # S f32 partial sums to a workspace (k_slices, conv_fwd_split_k_reduce).
    split_k: int = 1
    # The reduction by filter rows, each padded to block_k (conv.row_runs): vector loads for small C.
    row_runs: bool = False

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
        if not isinstance(self.tile, Tile):
            raise IgemmSpecError(
                f"IgemmSpec.tile: expected a tile.tile.Tile, got {self.tile!r}", "IgemmSpec.tile", self.tile
            )
        ops = tiles.shapes(self.conv.dtype)
        if self.tile.mma not in ops:
            raise IgemmSpecError(
                f"IgemmSpec.tile.mma: expected a matrix-core shape of {self.conv.dtype} inputs ({', '.join(ops)}), got {self.tile.mma!r}",
                "IgemmSpec.tile.mma",
                self.tile.mma,
                ops,
            )
        if not isinstance(self.row_runs, bool):
            raise IgemmSpecError(
                f"IgemmSpec.row_runs: expected true or false, got {self.row_runs!r}",
                "IgemmSpec.row_runs",
                self.row_runs,
            )
        why = row_runs.refusal(self.conv, self.tile.block_k) if self.row_runs else None
        if why is not None:
            raise IgemmSpecError(
                f"IgemmSpec.row_runs: expected a layer whose filter rows are runs: {why}; leave row_runs false",
                "IgemmSpec.row_runs",
                self.row_runs,
            )
        split = plain_int(self.split_k)
        object.__setattr__(self, "split_k", split)
        steps = self.k_steps
        if not isinstance(split, int) or isinstance(split, bool) or not 1 <= split <= steps:
            raise IgemmSpecError(
                f"IgemmSpec.split_k: expected an int from 1 to {steps} (the reduction's {self.gemm[2]} in k steps of {self.tile.block_k}: "
                f"each split reduces whole steps), got {split!r}; take a split in that range (conv.split_k.select_split_k_fwd picks one)",
                "IgemmSpec.split_k",
                split,
                steps,
            )
        if split > 1 and self.row_runs:
            raise IgemmSpecError(
                f"IgemmSpec.split_k: expected 1 for a spec with row_runs (its reduction is padded by filter rows), got {split}; leave split_k 1",
                "IgemmSpec.split_k",
                split,
                1,
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
        return f"mma_{self.tile.mma}_{self.conv.dtype}_f32"

    @property
    def gemm(self):
        """(M, N, K) of each group's GEMM: output pixels, filters per group, C/groups x filter taps
        (with row_runs, filter rows x block_k)."""
        c = self.conv
        pixels, taps = c.n, 1
        for o, f in zip(c.output, c.filter):
            pixels, taps = pixels * o, taps * f
        if self.row_runs:
            return pixels, c.k_per_group, row_runs.rows(c) * self.tile.block_k
        return pixels, c.k_per_group, c.c_per_group * taps

    @property
    def dgrad_one_phase(self):
        """Whether conv_igemm_dgrad computes only the one stride phase that a
        1x1 filter reaches: stride > 1, no padding, NHWC with C/groups in
        whole 16-byte units. Input pixel i takes dy only from o = i / stride,
        where the stride divides each of its coordinates, so the GEMM is the
        stride-1 problem over dy's pixels and every other pixel is zero."""
        c = self.conv
        return (
            c.channels_last
            and math.prod(c.filter) == 1
            and max(c.stride) > 1
            and not any(c.pad)
            and gather_address.whole_units(c.c_per_group, c.dtype)
        )

    @property
    def dgrad_gemm(self):
        """(M, N, K) of each group's GEMM when the spec is a data gradient's
        (conv_igemm_dgrad): input pixels (output pixels for dgrad_one_phase),
        channels per group, K/groups x filter taps."""
        c = self.conv
        pixels = c.output if self.dgrad_one_phase else c.spatial
        return c.n * math.prod(pixels), c.c_per_group, c.k_per_group * math.prod(c.filter)

    @property
    def k_steps(self):
        """The reduction's k steps of block_k (the last one may be partial)."""
        return -(-self.gemm[2] // self.tile.block_k)

    def k_slices(self):
        """[begin, end) of the reduction each split owns, in split order:
        contiguous runs of whole k steps, split s taking steps
        [s * steps // S, (s + 1) * steps // S) (never empty, as S <= steps),
        the last one ending at the reduction's end."""
        k, steps, split, step = self.gemm[2], self.k_steps, self.split_k, self.tile.block_k
        return [(s * steps // split * step, min((s + 1) * steps // split * step, k)) for s in range(split)]

    def grid(self):
        """Workgroups: filter blocks across x, pixel blocks across y, groups x splits across z (z = split x groups + group)."""
        m, n, _ = self.gemm
        return (-(-n // self.tile.block_n), -(-m // self.tile.block_m), self.conv.groups * self.split_k)

    def to_json(self):
        """The conv and the tile's fields beside it; split_k only when the spec splits (the JSON of an unsplit spec predates the field)."""
        split = {"split_k": self.split_k} if self.split_k != 1 else {}
        runs = {"row_runs": True} if self.row_runs else {}
        return {"conv": self.conv.to_json(), **self.tile.to_json(), **split, **runs}

    @classmethod
    def from_json(cls, obj):
        """The spec of a JSON object as to_json writes it: the tile first, then the conv and the rest."""
        fields = ("conv", *tiles.FIELDS)
        optional = ("split_k", "row_runs")
        if not isinstance(obj, dict) or sorted(set(obj) - set(optional)) != sorted(fields):
            raise IgemmSpecError(
                f"IgemmSpec: expected a JSON object with exactly the fields {', '.join(fields)} (and optionally split_k, row_runs), got {obj!r}",
                "IgemmSpec",
                obj,
                [*fields, *optional],
            )
        tile = Tile.of(obj, "IgemmSpec.tile", IgemmSpecError)
        return cls(obj["conv"], tile, **{f: obj[f] for f in optional if f in obj})


def form(spec, arch):
    """The matrix-core form of `spec`'s op on `arch` (arch.mma_forms): the
    kernel's wave size and lane layouts; IgemmSpecError (a Refusal) where the
    arch lacks the op."""
    found = FORMS.get((spec.op, archs.get(arch).generation))
    if found is None or arch not in found.archs:
        raise IgemmSpecError(
            f"IgemmSpec.tile.mma: expected a matrix-core shape {arch} has for {spec.conv.dtype}, got {spec.tile.mma!r}; take {arch}'s tile from library/conv/igemm_tiles.json",
            "IgemmSpec.tile.mma",
            spec.tile.mma,
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
    return IgemmSpec(conv, TILES[arch])
