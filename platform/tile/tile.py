"""A matrix-core tile: the one value the specs of tiled families embed.

A tile is the matrix-core shape `mma` ("MxNxK"), the block a workgroup
computes (block_m x block_n, block_k per step) and its waves (waves_m x
waves_n), each wave owning (block_m / waves_m) x (block_n / waves_n) of the
block. It is frozen and validated on construction: every size a positive
int at most MAX_SIZE, `mma` a shape platform/arch/mma_forms.json has (for
any input type; a spec narrows it to its own), and the block a whole
number of the waves' matrix ops. The C++ twin (platform/tile/cpp/tile.h)
checks the same, in the same order, with the same facts.

A spec holds its tile as a field (GemmSpec.tile, IgemmSpec.tile) and builds
it with Tile.of, so that an error names the field as the spec's
("GemmSpec.tile.block_m") in the spec's error class. A spec's JSON spells
the tile's fields beside its own (FIELDS, flat), as the tile tables do.
"""

import dataclasses
import operator

from arch.mma_forms import FORMS
from errors.errors import FieldError

# The sizes are i32 in the kernel (and int in the C++ engine's tile config):
# each at most MAX_SIZE, so no product of two passes 64 bits either.
MAX_SIZE = 2**31 - 1
SIZES = ("block_m", "block_n", "block_k", "waves_m", "waves_n")
# A tile's fields in declaration order: its JSON spelling, in specs and tile tables.
FIELDS = ("mma", *SIZES)


def shapes(dtype=None, arch=None):
    """The "MxNxK" shapes of the f32-accumulating matrix ops (on `dtype`
    inputs, on `arch`, where given) of mma_forms.json, smallest first."""
    found = {
        (f.shape.m, f.shape.n, f.shape.k)
        for f in FORMS.values()
        if f.shape.c == "f32" and dtype in (None, f.shape.a) and (arch is None or arch in f.archs)
    }
    return ["x".join(map(str, shape)) for shape in sorted(found)]


def _plain(value):
    """`value` as a plain int if it is an integer of any kind (numpy ints included, bools not), else unchanged."""
    if isinstance(value, bool):
        return value
    try:
        return operator.index(value)
    except TypeError:
        return value


def _checked(fields, where, error):
    """`fields` (a mapping with FIELDS) with plain int sizes, or `error` naming `where`.FIELD."""

    def fail(name, value, allowed, choices=None):
        raise error(f"{where}.{name}: expected {allowed}, got {value!r}", f"{where}.{name}", value, choices)

    out = {"mma": fields["mma"]}
    for name in SIZES:
        value = out[name] = _plain(fields[name])
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            fail(name, value, "a positive int")
        if value > MAX_SIZE:
            fail(name, value, f"a positive int at most {MAX_SIZE} (2**31 - 1: a tile size is an i32)", MAX_SIZE)
    known = shapes()
    if out["mma"] not in known:
        fail("mma", out["mma"], f"a matrix-core shape MxNxK: one of {', '.join(known)}", known)
    mm, mn, mk = (int(x) for x in out["mma"].split("x"))
    for name, part, why in (
        ("block_m", out["waves_m"] * mm, f"waves_m ({out['waves_m']}) x the mma's M ({mm})"),
        ("block_n", out["waves_n"] * mn, f"waves_n ({out['waves_n']}) x the mma's N ({mn})"),
        ("block_k", mk, f"the mma's K ({mk})"),
    ):
        if out[name] % part:
            fail(name, out[name], f"a multiple of {why} = {part}", part)
    return out


@dataclasses.dataclass(frozen=True)
class Tile:
    mma: str  # "MxNxK", e.g. "16x16x16"
    block_m: int
    block_n: int
    block_k: int
    waves_m: int
    waves_n: int

    def __post_init__(self):
        for name, value in _checked(vars(self), "Tile", FieldError).items():
            object.__setattr__(self, name, value)

    @classmethod
    def of(cls, fields, where, error):
        """The tile of `fields` (a mapping with at least FIELDS; others are
        ignored): `error` (an errors.FieldError class) naming `where`.FIELD
        for a bad one, e.g. Tile.of(obj, "GemmSpec.tile", SpecError)."""
        return cls(**_checked(fields, where, error))

    def to_json(self):
        """FIELDS as a JSON object, in their order."""
        return {name: getattr(self, name) for name in FIELDS}

    @property
    def mma_shape(self):
        """(M, N, K) of the matrix-core op."""
        return tuple(int(x) for x in self.mma.split("x"))

    @property
    def waves(self):
        """Waves of a workgroup."""
        return self.waves_m * self.waves_n

    def describe(self):
        """The tile in a few words: "mma 16x16x16, block 128x128x32, waves 2x2"."""
        return (
            f"mma {self.mma}, block {self.block_m}x{self.block_n}x{self.block_k}, waves {self.waves_m}x{self.waves_n}"
        )
