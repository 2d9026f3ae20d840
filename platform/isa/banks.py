"""A static model of LDS bank conflicts, read from the kernel IR.

What it can know: the byte address every lane of the workgroup gives each LDS
load and store, when that address is a function of the thread and lane ids
and constants only (the usual case for tile copies and fragment reads). Such
an address is evaluated exactly, lane by lane, for every wave. Anything else
it cannot know from the IR alone and says so per access, naming the value the
address depends on: a kernel argument, a block id, a loop's induction variable
or carried value, or loaded data. One such unknown it can still model: a
shift that is the same in every lane (a kernel argument, a block id, a loop's
induction variable over such bounds, or arithmetic on these and constants),
added to a known address, when it is a known multiple of the bank bytes (a
double-buffered tile's buffer offset): every lane moves by the same whole
number of dwords, so every pass keeps its ways. Such an access says so
("uniform_shift", the multiple). A direct-to-LDS load (mem.load_to_lds, buffer.load_to_lds) is
a 16-byte write by each lane at its wave's address + 16 * lane.

The model (per arch: `lds_banks` banks of `lds_bank_bytes` bytes, archs.json):
  - a wave's access of W bytes per lane is served in passes of G consecutive
    lanes, G = banks * bank_bytes / W' (W' = W rounded up to a power of two,
    at least one bank), so that one pass can at best touch every bank once:
    32 banks serve 32 lanes of b32, 16 of b64, 8 of b128 per pass;
  - in a pass, each bank serves one dword per cycle; lanes reading the same
    dword share it (broadcast); so a pass costs the largest number of
    distinct dwords that fall in one bank (its "ways"), at least 1;
  - the access costs the sum over its passes ("cycles") against one cycle per
    pass ("ideal"); the worst wave of the workgroup is reported.
Each allocation's base is taken as 0: a uniform shift by whole dwords moves
every lane to another bank alike and changes nothing. Lanes an scf.if with a
lane-known condition disables take no part; under a condition the model
cannot evaluate, every lane is assumed active (the access says so). The IR's
accesses are modelled before LLVM merges or splits them (ds_read2_*, ...);
the ISA counts show what LLVM made of them. A transposed read
(mem.load_transpose) counts as the 8-byte read each lane names: the
exchange between lanes happens after the banks. Real hardware groups lanes
differently for some instructions (gfx942's ds_read_b128 pairs quarter-wave
halves), so these figures are a model, not a measurement.
"""

import math

import numpy as np

from ir import types as T


class _Unknown:
    def __init__(self, reason, uniform=False, align=1):
        self.reason = reason
        self.uniform = uniform  # the same in every lane of the workgroup
        self.align = align  # where uniform: a known multiple of this


class _Shifted:
    """A known lane array plus a uniform _Unknown shift."""

    def __init__(self, lanes, shift):
        self.lanes, self.shift = lanes, shift


def _uniform(reason, align=1):
    return _Unknown(reason, uniform=True, align=align)


def _split(v):
    """(lane array or None, uniform shift or None) of a value an add can carry; None if it cannot."""
    if isinstance(v, _Shifted):
        return v.lanes, v.shift
    if isinstance(v, _Unknown):
        return (None, v) if v.uniform else None
    return v, None


def _alignment(v):
    """A known multiple of a lane-constant value: the shift's, or the constant itself."""
    return v.align if isinstance(v, _Unknown) else abs(int(v[0]))


def _constant(v):
    """Whether v is the same in every lane (a uniform unknown, or a lane array of one value)."""
    return v.uniform if isinstance(v, _Unknown) else not isinstance(v, _Shifted) and bool((v == v[0]).all())


def _int_div(a, b):
    b = np.where(b == 0, 1, b)
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) ^ (b < 0), -q, q)


_BINARY = {
    "arith.add": np.add,
    "arith.sub": np.subtract,
    "arith.mul": np.multiply,
    "arith.div": _int_div,
    "arith.rem": lambda a, b: a - b * _int_div(a, b),
    "arith.udiv": lambda a, b: (a % 2**32) // np.where(b == 0, 1, b % 2**32),
    "arith.urem": lambda a, b: (a % 2**32) % np.where(b == 0, 1, b % 2**32),
    "arith.min": np.minimum,
    "arith.max": np.maximum,
    "arith.and": np.bitwise_and,
    "arith.or": np.bitwise_or,
    "arith.xor": np.bitwise_xor,
    "arith.shl": np.left_shift,
    "arith.shr": np.right_shift,
}
_CMP = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}
# Ops whose result the model computes from their operands' lane values.
_PROPAGATING = set(_BINARY) | {"mem.offset", "arith.cmp", "arith.select", "arith.convert"}
_ACCESSES = {"mem.load": "read", "mem.load_transpose": "read", "mem.store": "write", "mem.atomic_add": "write"}
# Direct-to-LDS loads -> the index of their LDS destination operand.
_DIRECT = {"mem.load_to_lds": 1, "buffer.load_to_lds": 3}


def _is_int(t):
    return isinstance(t, T.ScalarType) and t.is_int


class _Model:
    def __init__(self, kernel, banks, bank_bytes):
        self.banks, self.bank_bytes = banks, bank_bytes
        self.wave = kernel.attrs["wave_size"]
        x, y, z = kernel.attrs["workgroup_size"]
        t = np.arange(x * y * z, dtype=np.int64)
        self.ids = {"gpu.thread_id": {0: t % x, 1: (t // x) % y, 2: t // (x * y)}, "gpu.block_dim": {0: x, 1: y, 2: z}}
        self.lane = t % self.wave
        self.lanes = t.size
        self.env = {a: _uniform(f"kernel argument {a.name}") for a in kernel.args}
        self.accesses = []
        self.index = 0

    def block(self, block, mask, mask_known, depth):
        for op in block.ops:
            self.op(op, mask, mask_known, depth)

    def op(self, op, mask, mask_known, depth):
        index = self.index
        self.index += 1
        if op.name in _ACCESSES and op.operands[0].type is T.LDS:
            data = op.results[0] if op.name in ("mem.load", "mem.load_transpose") else op.operands[1]
            self.accesses.append(
                self.access(
                    index, _ACCESSES[op.name], data.type.nbytes, self.env[op.operands[0]], mask, mask_known, depth
                )
            )
        if op.name in _DIRECT:  # lane L writes 16 bytes at its wave's address + 16 L
            dst = self.env[op.operands[_DIRECT[op.name]]]
            lanes = 16 * self.lane
            address = (
                dst + lanes
                if isinstance(dst, np.ndarray)
                else _Shifted(dst.lanes + lanes, dst.shift)
                if isinstance(dst, _Shifted)
                else dst
            )
            self.accesses.append(self.access(index, "write", 16, address, mask, mask_known, depth))
        if op.name == "scf.if":
            cond = self.env[op.operands[0]]
            known = not isinstance(cond, _Unknown)
            cond = cond.astype(bool) if known else cond
            for arm, part in zip(op.regions, (cond, ~cond) if known else (True, True)):
                self.block(arm, mask & part, mask_known and known, depth)
        elif op.name == "scf.for":
            reason = "a loop's induction variable or carried value"
            for arg in op.regions[0].args:
                self.env[arg] = _Unknown(reason)
            lo, _, step = (self.env[v] for v in op.operands[:3])
            if all(_constant(self.env[v]) for v in op.operands[:3]):  # the same iterations in every lane
                self.env[op.regions[0].args[0]] = _uniform(reason, math.gcd(_alignment(lo), _alignment(step)))
            self.block(op.regions[0], mask, mask_known, depth + 1)
        for r, value in zip(op.results, self.evaluate(op)):
            self.env[r] = value

    def evaluate(self, op):
        """The op's results: lane arrays where the model can know them."""
        ins = [self.env[v] for v in op.operands]
        opaque = [v for v in ins if not isinstance(v, np.ndarray)]
        name = op.name
        if name == "arith.const" and _is_int(op.results[0].type):
            return [np.full(self.lanes, op.attrs["value"], np.int64)]
        if name in self.ids:
            ids = self.ids[name][op.attrs["dim"]]
            return [np.broadcast_to(np.int64(ids), (self.lanes,)) if np.isscalar(ids) else ids]
        if name == "gpu.lane_id":
            return [self.lane]
        if name == "mem.lds_alloc":
            return [np.zeros(self.lanes, np.int64)]
        if name in ("gpu.block_id", "gpu.grid_dim"):
            return [_uniform(f"the result of {name}")]
        if name == "lane.readfirstlane":
            return [self.first_lane(ins[0])]
        if name not in _PROPAGATING:
            return [_Unknown(f"the result of {name}")] * len(op.results)
        if opaque:
            return [self.partial(op, ins, opaque)] * len(op.results)
        if name in _BINARY and _is_int(op.results[0].type):
            return [_BINARY[name](ins[0], ins[1])]
        if name == "mem.offset" and op.operands[0].type is T.LDS:
            return [ins[0] + ins[1]]
        if name == "arith.cmp" and _is_int(op.operands[0].type):
            return [_CMP[op.attrs["pred"]](ins[0], ins[1])]
        if name == "arith.select" and _is_int(op.results[0].type):
            return [np.where(ins[0], ins[1], ins[2])]
        if name == "arith.convert" and _is_int(op.operands[0].type) and _is_int(op.results[0].type):
            return [ins[0]]
        return [_Unknown(f"the result of {name}")] * len(op.results)

    def first_lane(self, x):
        """lane.readfirstlane: every lane gets its wave's first lane's value."""
        first = np.arange(self.lanes) // self.wave * self.wave
        if isinstance(x, _Shifted):
            return _Shifted(x.lanes[first], x.shift)
        return x if isinstance(x, _Unknown) else x[first]

    def partial(self, op, ins, opaque):
        """The result of a propagating op on values the model cannot know: a
        known address plus a uniform shift (add, sub, LDS offset), a uniform
        unknown (every operand the same in every lane), or the unknown the
        value really depends on."""
        name = op.name
        first = opaque[0].shift if isinstance(opaque[0], _Shifted) else opaque[0]
        if all(_constant(v) for v in ins):
            align = {
                "arith.add": math.gcd,
                "arith.sub": math.gcd,
                "mem.offset": math.gcd,
                "arith.mul": lambda x, y: x * y,
            }.get(name)
            if name == "arith.shl" and isinstance(ins[1], np.ndarray):
                return _uniform(first.reason, ins[0].align << int(ins[1][0]))
            return _uniform(first.reason, align(*map(_alignment, ins)) if align else 1)
        shifts = (
            name in ("arith.add", "arith.sub")
            and _is_int(op.results[0].type)
            or name == "mem.offset"
            and op.operands[0].type is T.LDS
        )
        parts = [_split(v) for v in ins]
        if not shifts or any(p is None for p in parts):
            return _Unknown(first.reason)
        lanes = [np.zeros(self.lanes, np.int64) if x is None else x for x, _ in parts]
        shift = _uniform(first.reason, math.gcd(*(u.align for _, u in parts if u is not None)))
        return _Shifted(lanes[0] - lanes[1] if name == "arith.sub" else lanes[0] + lanes[1], shift)

    def access(self, index, kind, nbytes, address, mask, mask_known, depth):
        entry = {
            "op": index,
            "access": kind,
            "bytes": nbytes,
            "loop_depth": depth,
            "all_lanes_assumed": not mask_known,
            "uniform_shift": None,
        }
        if isinstance(address, _Shifted):
            if address.shift.align % self.bank_bytes:
                reason = f"the address depends on {address.shift.reason}, the same in every lane but not known to be a multiple of {self.bank_bytes} bytes"
                return dict(entry, modelled=False, reason=reason, cycles=None, ideal=None, ways=None)
            entry["uniform_shift"] = address.shift.align
            address = address.lanes
        if isinstance(address, _Unknown):
            return dict(
                entry,
                modelled=False,
                reason=f"the address depends on {address.reason}",
                cycles=None,
                ideal=None,
                ways=None,
            )
        worst = (0, 0, 0)
        active = np.broadcast_to(mask, (self.lanes,))
        for w in range(0, self.lanes, self.wave):
            lanes = np.arange(w, min(w + self.wave, self.lanes))
            worst = max(worst, self.wave_cost(address[lanes], active[lanes], nbytes))
        cycles, ideal, ways = worst
        return dict(entry, modelled=True, reason=None, cycles=cycles, ideal=ideal, ways=ways)

    def wave_cost(self, addresses, active, nbytes):
        return wave_cost(addresses, active, nbytes, self.banks, self.bank_bytes)


def wave_cost(addresses, active, nbytes, banks, bank_bytes):
    """(cycles, ideal, worst ways) of one wave's access of `nbytes` per lane at
    byte `addresses` by the `active` lanes (the model of the module doc; the
    emulator counts real accesses with it too)."""
    span = 1 << (max(nbytes, bank_bytes) - 1).bit_length()
    group = max(1, banks * bank_bytes // span)
    cycles = ideal = ways = 0
    for start in range(0, addresses.size, group):
        sel = active[start : start + group]
        if not sel.any():
            continue
        firsts = addresses[start : start + group][sel] // bank_bytes
        lasts = (addresses[start : start + group][sel] + nbytes - 1) // bank_bytes
        dwords = {int(d) for f, l in zip(firsts, lasts) for d in range(f, l + 1)}
        per_bank = np.bincount([d % banks for d in dwords], minlength=banks)
        pass_ways = int(per_bank.max())
        cycles, ideal, ways = cycles + pass_ways, ideal + 1, max(ways, pass_ways)
    return cycles, ideal, ways


def model(kernel, banks, bank_bytes):
    """The bank-conflict model of every LDS access of `kernel` (see the module doc), JSON-ready."""
    m = _Model(kernel, banks, bank_bytes)
    m.block(kernel.body, np.ones(m.lanes, bool), True, 0)
    done = [a for a in m.accesses if a["modelled"]]
    return {
        "banks": banks,
        "bank_bytes": bank_bytes,
        "accesses": m.accesses,
        "modelled": len(done),
        "not_modelled": len(m.accesses) - len(done),
        "conflicted": sum(1 for a in done if a["ways"] > 1),
        "worst_ways": max((a["ways"] for a in done), default=None),
        "cycles": sum(a["cycles"] for a in done),
        "ideal": sum(a["ideal"] for a in done),
    }
