"""How platform/tile lays matrix-core fragments out across a wave's lanes.

For an op id on an arch generation, lane l's A fragment is row (l % rows) of the
A tile and `per_lane` consecutive k starting at ((l // rows) % groups) *
per_lane; B is the same with columns. Consecutive k let a lane read its A
fragment from LDS with one vector load. For gfx12 and gfx1250 this k order
differs from the ISA's (see platform/interp/layouts.py) by a permutation of K
applied to A and B alike, which leaves D = A*B + C unchanged: fragments_test
proves that against AMD's own tables (platform/interp/testdata). The GEMM's
main loop (gemm.py) uses the same freedom once more: a lane reads the k of
several mma steps in one 16-byte read, groups taking consecutive spans.

C/D fragments have no such freedom: `c` gives (row, col) of lane l's element
v exactly as the hardware places them, from platform/arch/mma_layouts.json
(which the reference interpreter's layouts read too); runs of `c_run`
elements are consecutive rows of one column (so consecutive columns of one
row when the GEMM computes C transposed, and one vector store).

Placements are keyed by the layout id of platform/arch/mma_forms.json, which
says which (op id, arch generation) uses which; FRAGMENTS is built from that file.
The numbers of each A/B placement and the input types are data,
fragments.json beside this file, which the C++ mirror (platform/tile/cpp)
reads too, as it reads mma_layouts.json.
"""

import dataclasses
import json
import os

from arch.mma_forms import FORMS
from arch.mma_layouts import C_PLACEMENTS, CPlacement

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fragments.json")


@dataclasses.dataclass(frozen=True)
class Fragment:
    rows: int  # lanes per k group (the M or N extent one group covers)
    groups: int  # k groups across the wave (1: lanes repeat, as on gfx11)
    per_lane: int  # consecutive k per lane
    placement: CPlacement  # where the hardware puts C and D (platform/arch/mma_layouts.json)

    @property
    def c_run(self):
        """Elements v, v+1, ... (v a multiple of it) of a lane's C fragment lie in consecutive rows, one column."""
        return self.placement.run

    def c(self, b, lane, v):
        """(row, col) values of lane's C element v, as the hardware places it."""
        return self.placement.row(b, lane, v), b.urem(lane, self.placement.n)

    def origin(self, b, lane, span=None):
        """(row, k) values: lane's A fragment is that row of the A tile at k, k+1, ...;
        its B fragment is that column of the B tile at the same k. With `span`
        (a multiple of per_lane), each group's k lie `span` apart: the GEMM's
        reads of several mma steps at once (gemm.py)."""
        return b.urem(lane, self.rows), b.mul(b.urem(b.udiv(lane, self.rows), self.groups), span or self.per_lane)


def _load(path):
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    by_id = {}
    for layout, entry in sorted(raw["layouts"].items()):
        if layout not in C_PLACEMENTS:
            raise ValueError(
                f"{path}: layouts.{layout}: expected a layout id of platform/arch/mma_layouts.json "
                f"({', '.join(sorted(C_PLACEMENTS))}), got {layout!r}"
            )
        by_id[layout] = Fragment(entry["rows"], entry["groups"], entry["per_lane"], C_PLACEMENTS[layout])
    return by_id, tuple(raw["inputs"])


# Layout id -> Fragment, and the element types the tile's GEMM takes (fp8 is
# f8e4m3; the copy moves its bytes as i8, since fp8 is storage-only).
BY_ID, INPUTS = _load(PATH)

# (op id, arch generation) -> Fragment, for the forms the tile's GEMM can use. A
# layout id without a Fragment fails here, at import.
FRAGMENTS = {key: BY_ID[form.layout] for key, form in FORMS.items() if form.shape.a in INPUTS}
