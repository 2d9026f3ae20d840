"""DPP: a VALU op whose first source is read from another lane of the same row.

An instruction with the _dpp suffix (VOP1/VOP2 with the DPP word) reads src0
of lane l from the lane its dpp_ctrl names, within l's row of 16 lanes
(AMD's CDNA3 and RDNA4 ISA manuals, "DPP"):

  - quad_perm:[a,b,c,d]: lane l % 4 = i of each quad reads the quad's lane p[i];
  - row_shl:n, row_shr:n: lane i of the row reads lane i + n, i - n (none past the row);
  - row_ror:n: lane i reads lane (i - n) mod 16;
  - row_share:n (gfx10+): every lane reads lane n of its row;
  - row_xmask:n (gfx10+): lane i reads lane i ^ n.

A source lane past the row, or not in EXEC (unless fi:1 fetches inactive
lanes), is invalid: with bound_ctrl:1 the lane reads 0, otherwise it is not
written. row_mask and bank_mask (4 bits each: rows of 16 lanes, banks of 4
lanes within a row) leave the lanes they clear unwritten. LLVM 23 and later
turn a lane.bpermute by a constant xor into these (library/softmax's
reductions). The broadcast and whole-wave shifts (row_bcast, wave_shl, ...)
are refused by name.
"""

import numpy as np

MODIFIERS = frozenset(
    {
        "quad_perm",
        "row_shl",
        "row_shr",
        "row_ror",
        "row_share",
        "row_xmask",
        "row_mask",
        "bank_mask",
        "bound_ctrl",
        "fi",
    }
)
_CONTROLS = ("quad_perm", "row_shl", "row_shr", "row_ror", "row_share", "row_xmask")


class DppError(ValueError):
    """A DPP control this emulator does not implement, or a malformed one."""


def sources(inst, lanes):
    """(source lane of each lane, whether it lies in the row): numpy arrays over `lanes` lanes."""
    given = [c for c in _CONTROLS if inst.modifier(c) is not None]
    if len(given) != 1:
        raise DppError(f"expected one DPP control of {', '.join(_CONTROLS)}, got {given or 'none'} in {inst.text!r}")
    control = given[0]
    text = inst.modifier(control)
    lane = np.arange(lanes)
    i = lane % 16
    base = lane - i
    if control == "quad_perm":
        perm = np.array([int(x) for x in text.strip("[]").split(",")])
        if perm.shape != (4,) or not ((0 <= perm) & (perm < 4)).all():
            raise DppError(f"expected quad_perm:[a,b,c,d] of lanes 0..3, got {text!r}")
        return lane - lane % 4 + perm[lane % 4], np.ones(lanes, bool)
    n = int(text, 0)
    if not 0 <= n < 16:
        raise DppError(f"expected {control}:n with n in 0..15, got {text!r}")
    if control == "row_shl":
        return np.minimum(lane + n, lanes - 1), i + n < 16
    if control == "row_shr":
        return np.maximum(lane - n, 0), i >= n
    if control == "row_ror":
        return base + (i - n) % 16, np.ones(lanes, bool)
    if control == "row_share":
        return base + n, np.ones(lanes, bool)
    return base + (i ^ n), np.ones(lanes, bool)


def _enabled(inst, lanes):
    """The lanes row_mask and bank_mask leave enabled."""
    lane = np.arange(lanes)
    row_mask, bank_mask = (int(inst.modifier(m, "0xf"), 0) for m in ("row_mask", "bank_mask"))
    return ((row_mask >> (lane // 16)) & 1).astype(bool) & ((bank_mask >> (lane // 4 % 4)) & 1).astype(bool)


def bind(inst, lanes, read):
    """(read', keep) for a DPP instruction whose src0 reader is `read`: read' gives src0 as the lanes'
    sources hold it (0 where invalid and bound_ctrl:1); keep(w) is where the destination keeps its value,
    or None when every lane is written."""
    src, inside = sources(inst, lanes)
    bound = inst.modifier("bound_ctrl") not in (None, "0")
    fetch_inactive = inst.modifier("fi") not in (None, "0")
    enabled = _enabled(inst, lanes)

    def valid(w):
        return inside if fetch_inactive else inside & w.exec[src]

    def permuted(w):
        x = read(w)[src]
        return np.where(valid(w), x, x.dtype.type(0)) if bound else x

    if bound and enabled.all():
        return permuted, None

    def keep(w):
        return ~enabled | (False if bound else ~valid(w))

    return permuted, keep
