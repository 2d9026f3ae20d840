"""One wave's architectural state: SGPRs, VGPRs, AGPRs, SCC, EXEC, VCC, M0,
the memory operations in flight, and where it is in the program.

SGPRs are Python ints (scalar code stays scalar); VGPRs and AGPRs are
numpy uint32 arrays laid out lane-major, (lanes, registers), so that the
registers of one lane's 64- or 128-bit operand are adjacent and a view of
them is that operand.

SGPR file indices, the same on every arch (the assembler's names are what
the program uses; the hardware's encodings never reach this file):
s0-s105 0-105, vcc_lo/hi 106/107, ttmp0-15 108-123, m0 124, null 125,
exec_lo/hi 126/127; flat_scratch and xnack_mask (gfx9) are s102/s104.
"""

import numpy as np

SGPRS = 128
VCC, TTMP, M0, NULL, EXEC = 106, 108, 124, 125, 126
NAMED = {
    "vcc": (VCC, 2),
    "vcc_lo": (VCC, 1),
    "vcc_hi": (VCC + 1, 1),
    "exec": (EXEC, 2),
    "exec_lo": (EXEC, 1),
    "exec_hi": (EXEC + 1, 1),
    "m0": (M0, 1),
    "null": (NULL, 1),
    "flat_scratch": (102, 2),
    "flat_scratch_lo": (102, 1),
    "flat_scratch_hi": (103, 1),
    "xnack_mask": (104, 2),
    "xnack_mask_lo": (104, 1),
    "xnack_mask_hi": (105, 1),
}
# What a load's destination (registers, or the LDS bytes of a direct-to-LDS
# load) holds until a wait retires it: a NaN as f32, as either f16 half and
# as either bf16 half, and an address far outside every buffer.
POISON = 0x7FC17FC1
POISON_BYTES = np.array([0xC1, 0x7F, 0xC1, 0x7F], np.uint8)

_LANES: dict = {w: np.arange(w, dtype=np.uint64) for w in (32, 64)}
_ONE = np.uint64(1)


_MASKS: dict = {}


def mask_to_bools(value, lanes):
    """A lane mask (an int of `lanes` bits) as a read-only bool array."""
    key = (value, lanes)
    bools = _MASKS.get(key)
    if bools is None:
        if len(_MASKS) > 4096:  # masks repeat (exec, vcc); a bound keeps the cache small
            _MASKS.clear()
        bools = ((np.uint64(value) >> _LANES[lanes]) & _ONE).astype(bool)
        bools.flags.writeable = False
        _MASKS[key] = bools
    return bools


def bools_to_mask(bools):
    """A bool array of 32 or 64 lanes as an int."""
    return int.from_bytes(np.packbits(bools, bitorder="little").tobytes(), "little")


class Pending:
    """A memory operation in flight: counted by `counter` until a wait retires
    it, when `retire` (if any) lands its data."""

    __slots__ = ("counter", "retire", "landed", "address", "seq")

    def __init__(self, counter, retire, address):
        self.counter, self.retire, self.landed, self.address = counter, retire, False, address
        self.seq = -1  # its number among the wave's memory operations, when the launch traces

    def land(self):
        if not self.landed and self.retire is not None:
            self.retire()
        self.landed = True


class Wave:
    def __init__(self, index, lanes, vgprs, agprs, workgroup):
        self.index = index  # wave number within its workgroup
        self.lanes = lanes
        self.s = [0] * SGPRS
        self.v = np.zeros((lanes, vgprs), np.uint32)
        self.a = np.zeros((lanes, agprs), np.uint32)
        self.scc = 0
        self.exec_bits = 0
        self.exec = np.zeros(lanes, bool)
        self.full = False
        self.lane_ids = np.arange(lanes, dtype=np.uint32)
        self.workgroup = workgroup  # the Workgroup: its LDS, its waves
        self.pending = []  # Pending, oldest first
        self.lds_writes = []  # Pending LDS writes not yet landed, which later LDS ops of this wave see
        self.pc = 0  # index of the next instruction
        self.done = False
        self.barriers = 0  # barriers this wave has signalled
        self.waiting = False  # blocked at a barrier wait
        self.private = None  # (lanes, bytes) uint8: each lane's private segment
        self.memory = None  # the launch's Memory
        self.figures = None  # the launch's Figures, when it counts them
        self.executed = 0
        self.waits = []  # (address, operations landed) of every wait executed
        self.lds_out_of_range = 0  # lanes whose LDS access fell outside the allocation
        self.trace = []  # (index, operations issued, numbers of the operations retired), when the launch traces
        self.issued = 0  # memory operations numbered so far, when the launch traces

    def set_exec(self, bits):
        full = (1 << self.lanes) - 1
        bits &= full
        self.exec_bits = bits
        self.s[EXEC] = bits & 0xFFFFFFFF
        self.s[EXEC + 1] = bits >> 32 if self.lanes == 64 else 0
        self.exec = mask_to_bools(bits, self.lanes)
        self.full = bits == full

    def write_s(self, index, value):
        """Write one SGPR; EXEC's halves keep the exec mask in step, null drops the value."""
        if index >= EXEC:
            lo = value if index == EXEC else self.s[EXEC]
            hi = value if index == EXEC + 1 else self.s[EXEC + 1]
            self.set_exec((lo & 0xFFFFFFFF) | (hi & 0xFFFFFFFF) << 32)
        elif index != NULL:
            self.s[index] = value & 0xFFFFFFFF

    def mask(self, index):
        """The lane mask held at SGPR `index` (a pair on wave64)."""
        if index == NULL:
            return 0
        if self.lanes == 64:
            return self.s[index] | self.s[index + 1] << 32
        return self.s[index]

    def write_mask(self, index, bits):
        if index == EXEC:
            self.set_exec(bits)
        elif self.lanes == 64:
            self.write_s(index, bits & 0xFFFFFFFF)
            self.write_s(index + 1, bits >> 32)
        else:
            self.write_s(index, bits)
