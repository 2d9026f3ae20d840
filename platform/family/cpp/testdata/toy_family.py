"""A tiny family in both engines (toy_family.cc is its C++ twin), for the
emitters' identity test: four cases on three archs, one a rejection on
llvm20, one the family refuses on every flavor (more than 1024 lanes), two
with the same problem on one generation (one representative)."""

import dataclasses

from errors.errors import FieldError
from family.family import Case, Family, Refusal
from ir import types as T
from ir.builder import KernelBuilder


class SpecError(FieldError):
    """A spec the toy family cannot read."""


class ToyRefusal(SpecError, Refusal):
    """A valid spec the toy family does not take."""


MAX_LANES = 1024  # a workgroup's most lanes


@dataclasses.dataclass(frozen=True)
class ToySpec:
    lanes: int
    note: str

    def to_json(self):
        return {"lanes": self.lanes, "note": self.note}

    @classmethod
    def from_json(cls, obj):
        if not (
            type(obj) is dict
            and sorted(obj) == ["lanes", "note"]
            and type(obj["lanes"]) is int
            and type(obj["note"]) is str
        ):
            raise SpecError(f'ToySpec: expected {{"lanes": int, "note": str}}, got {obj!r}', "ToySpec", obj)
        return cls(**obj)


def build(case):
    if case.spec.lanes > MAX_LANES:
        raise ToyRefusal(
            f"toy: lanes={case.spec.lanes} is not supported (at most {MAX_LANES}); no other family takes it",
            "ToySpec.lanes",
            case.spec.lanes,
            MAX_LANES,
        )
    b = KernelBuilder("toy_" + case.id, arch=case.arch, workgroup_size=(case.spec.lanes, 1, 1))
    out = b.arg("out", T.GLOBAL)
    b.barrier()
    r = b.buffer_rsrc(out, 256)
    b.buffer_store(r, b.mul(b.thread_id(0), 4), b.convert(b.lane_id(), T.F32))
    return b.finish()


# The note holds what the canonical JSON escapes, and a non-ASCII letter it does not.
_SPEC = ToySpec(64, 'é"\\\n\x01')
FAMILY = Family(
    "toy",
    (
        Case("p_gfx942", "gfx942", _SPEC),
        Case("p_gfx950", "gfx950", _SPEC),
        Case("q_gfx1250", "gfx1250", ToySpec(128, "q")),
        Case("r_gfx942", "gfx942", ToySpec(2048, "r")),
    ),
    build,
    numeric_check=None,
)
