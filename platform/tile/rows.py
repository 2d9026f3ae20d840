"""Row reductions over a workgroup: a statistic (a sum, a max) of f32 values
spread over every lane of every wave, which every lane then holds.

tile.softmax.across reduces over the lanes of one accumulator column; a row
held by a whole workgroup (a norm's row, one vector of it per lane) needs
every lane, in two levels:

  - wave: over the lanes of a wave by lane.bpermute (ds_bpermute_b32)
    exchanges with lane l ^ 1, l ^ 2, ... (log2 of the wave's lanes: 6 on 64
    lanes, 5 on 32). IEEE addition and max are commutative, so both lanes of
    each exchange combine the same two values and every lane ends with the
    same bits.
  - workgroup: each wave's result through LDS: lane 0 of wave w writes slot
    w, a barrier, and every lane combines the slots in wave order (the same
    order everywhere: the same bits again); a second barrier before the
    slots are written again. One wave needs no LDS and no barrier.
"""

from ir import types as T
from tile.softmax import LANE_BYTES

SLOT_BYTES = 4  # one f32 per wave


def wave(b, x, combine):
    """`combine` (a builder method: b.add, b.max) of the f32 `x` over every lane of the wave; every lane gets it."""
    lane = b.lane_id()
    step = 1
    while step < b.wave_size:
        x = combine(x, b.bpermute(b.mul(b.xor(lane, step), LANE_BYTES), x))
        step *= 2
    return x


def slots_bytes(waves):
    """LDS bytes `workgroup` needs for `waves` waves (none for one)."""
    return waves * SLOT_BYTES if waves > 1 else 0


def workgroup(b, x, combine, slots, waves):
    """`combine` of the f32 `x` over every lane of the workgroup's `waves` waves; every lane gets it.
    `slots`: an LDS allocation of slots_bytes(waves) bytes (None for one wave)."""
    x = wave(b, x, combine)
    if waves == 1:
        return x
    w = b.udiv(b.thread_id(0), b.wave_size)
    with b.if_(b.cmp("eq", b.lane_id(), 0)):
        b.store(b.offset(slots, b.mul(w, SLOT_BYTES)), x)
    b.barrier()
    total = b.load(slots, T.F32)
    for i in range(1, waves):
        total = combine(total, b.load(b.offset(slots, i * SLOT_BYTES), T.F32))
    b.barrier()  # every lane has read the slots: the next reduction may write them
    return total
