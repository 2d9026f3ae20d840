"""DPP: a VOP1 or VOP2 instruction whose first source is read from another lane of its row.

LLVM 23 and 24 turn a butterfly of ds_bpermute exchanges (tile/rows.py) into
DPP moves and adds for the exchanges inside a row of 16 lanes. The
disassembler spells the lane control as one of:

  - quad_perm:[a,b,c,d]: lane l reads lane 4 (l // 4) + [a, b, c, d][l % 4];
  - row_ror:n: each row of 16 lanes rotated right by n, lane l reads
    16 (l // 16) + (l % 16 + n) % 16;
  - row_xmask:m (gfx10 on): lane l reads 16 (l // 16) + (l % 16) ^ m.

row_mask and bank_mask must enable every row and bank (0xf, what LLVM writes
for a whole-wave exchange), and bound_ctrl must be given: with it an inactive
source lane reads 0 (LLVM spells the set bit bound_ctrl:1, older versions
bound_ctrl:0). Any other control (row_shl, row_bcast, wave_shr, ...) or mask
is refused at bind time, naming it: those are not implemented.
"""

import numpy as np

# The lane controls: name -> the source lane of each lane, from the control's value and the lane numbers.
_ROW = 16
_CONTROLS = {
    "quad_perm": lambda value, lane: lane // 4 * 4 + np.array([int(x) for x in value.strip("[]").split(",")])[lane % 4],
    "row_ror": lambda value, lane: lane // _ROW * _ROW + (lane % _ROW + int(value, 0)) % _ROW,
    "row_xmask": lambda value, lane: lane // _ROW * _ROW + (lane % _ROW ^ int(value, 0)),
}
_MASKS = ("row_mask", "bank_mask")
# The modifiers a DPP instruction may carry (program.KNOWN_MODIFIERS takes them in).
MODIFIERS = frozenset({*_CONTROLS, *_MASKS, "bound_ctrl"})


def source_lanes(inst, lanes):
    """The lane each of a wave's `lanes` lanes reads the first source from; ValueError naming what
    is not implemented."""
    given = [name for name in _CONTROLS if inst.modifier(name) is not None]
    if len(given) != 1:
        raise ValueError(f"expected one DPP lane control of {', '.join(_CONTROLS)}, got {', '.join(given) or 'none'}")
    for mask in _MASKS:
        if int(inst.modifier(mask, "0xf"), 0) != 0xF:
            raise ValueError(f"expected {mask}:0xf (every row and bank enabled), got {mask}:{inst.modifier(mask)}")
    if inst.modifier("bound_ctrl") is None:
        raise ValueError("expected bound_ctrl (an inactive source lane reads 0), got none")
    control = given[0]
    return _CONTROLS[control](inst.modifier(control), np.arange(lanes))


def reader(inst, lanes, read):
    """`read` (a reader of the first source, a function of the wave) through the DPP lane control:
    each lane gets its source lane's value, 0 from an inactive one."""
    src = source_lanes(inst, lanes)

    def permuted(w):
        x = read(w)[src]
        return np.where(w.exec[src], x, x.dtype.type(0))

    return permuted
