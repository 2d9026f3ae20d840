"""Program control: branches, the end, barriers, waits, and the instructions
that change nothing the emulator models (scheduling hints, cache controls).

Waits. Each counter is retired in issue order: `s_waitcnt vmcnt(N)` lands
the oldest vector memory operations of the wave until at most N remain
(gfx9: vmcnt counts loads and stores, lgkmcnt LDS and scalar loads; gfx12:
loadcnt, storecnt, dscnt, kmcnt). Results arrive no earlier than the ISA
allows, so a missing or too-weak wait leaves poison in a register. Every
executed wait is recorded (Wave.waits): its address and how many operations
it retired.

Barriers. s_barrier (gfx9) and s_barrier_signal + s_barrier_wait (gfx12): a
wave passes its n-th barrier once every wave of the workgroup that has not
ended has signalled n barriers.
"""

import re

from emu import operands as O
from emu.errors import ExecutionError
from emu.table import BLOCK, END, register

# counter name in s_waitcnt's text -> the counter (gfx9)
_GFX9_WAITCNT = {"vmcnt": "vm", "lgkmcnt": "lgkm", "expcnt": "exp"}
# gfx12 s_wait_X -> the counters its immediate bounds
_GFX12_WAITS = {
    "s_wait_loadcnt": ("load",),
    "s_wait_storecnt": ("store",),
    "s_wait_dscnt": ("ds",),
    "s_wait_kmcnt": ("km",),
    "s_wait_samplecnt": ("sample",),
    "s_wait_bvhcnt": ("bvh",),
    "s_wait_expcnt": ("exp",),
}
# The packed gfx12 forms: (counter, shift, width) of the immediate.
_GFX12_PACKED = {
    "s_wait_loadcnt_dscnt": (("load", 8, 6), ("ds", 0, 6)),
    "s_wait_storecnt_dscnt": (("store", 8, 6), ("ds", 0, 6)),
}
# gfx9 s_waitcnt's immediate (when printed as a number): vmcnt [3:0] and [15:14], expcnt [6:4], lgkmcnt [11:8].
_GFX9_FIELDS = (("vm", ((0, 4), (14, 2))), ("exp", ((4, 3),)), ("lgkm", ((8, 4),)))


def retire(w, counter, limit):
    """Land the oldest operations of `counter` until at most `limit` are in flight; how many landed."""
    if len(w.pending) <= limit:  # fewer in flight than the limit, of every counter: nothing to land
        return 0
    mine = [p for p in w.pending if p.counter == counter]
    excess = len(mine) - limit
    if excess <= 0:
        return 0
    done = mine[:excess]
    for p in done:
        p.land()
    gone = set(map(id, done))
    w.pending = [p for p in w.pending if id(p) not in gone]
    return excess


def _wait_step(limits, address):
    def step(w):
        landed = 0
        for counter, limit in limits:
            landed += retire(w, counter, limit)
        w.waits.append((address, landed))

    return step


def _gfx9_limits(text):
    limits = []
    named = re.findall(r"(\w+)\((\d+)\)", text)
    if named:
        for name, value in named:
            limits.append((_GFX9_WAITCNT[name], int(value)))
        return limits
    imm = int(text.split()[0], 0)
    for counter, fields in _GFX9_FIELDS:
        value, at = 0, 0
        for shift, width in fields:
            value |= ((imm >> shift) & ((1 << width) - 1)) << at
            at += width
        limits.append((counter, value))
    return limits


def bind_waitcnt(inst, ctx):
    return _wait_step(_gfx9_limits(" ".join(inst.operands)), inst.address)


def bind_gfx12_wait(counters):
    def binder(inst, ctx):
        value = int(inst.operands[0], 0)
        return _wait_step([(c, value) for c in counters], inst.address)

    return binder


def bind_gfx12_packed(fields):
    def binder(inst, ctx):
        value = int(inst.operands[0], 0)
        return _wait_step([(c, (value >> s) & ((1 << n) - 1)) for c, s, n in fields], inst.address)

    return binder


# -- branches -------------------------------------------------------------------------------


def _branch(condition):
    def binder(inst, ctx):
        target = ctx.index_of(inst.target, inst)
        if condition is None:
            return lambda w: target
        return lambda w: target if condition(w) else None

    return binder


BRANCHES = {
    "s_branch": None,
    "s_cbranch_scc0": lambda w: w.scc == 0,
    "s_cbranch_scc1": lambda w: w.scc == 1,
    "s_cbranch_vccz": lambda w: w.mask(106) == 0,
    "s_cbranch_vccnz": lambda w: w.mask(106) != 0,
    "s_cbranch_execz": lambda w: w.exec_bits == 0,
    "s_cbranch_execnz": lambda w: w.exec_bits != 0,
}


# -- barriers and the end -------------------------------------------------------------------


def _signal(w):
    w.barriers += 1


def _may_pass(w):
    return all(o.done or o.barriers >= w.barriers for o in w.workgroup.waves)


def bind_barrier(inst, ctx):
    """gfx9 s_barrier: signal once, then wait (the step runs again while blocked)."""

    def step(w):
        if not w.waiting:
            _signal(w)
            w.waiting = True
        if not _may_pass(w):
            return BLOCK
        w.waiting = False
        return None

    return step


def bind_barrier_signal(inst, ctx):
    ops = [O.parse(t) for t in inst.operands]
    if ops and not (ops[0].kind == "const" and ops[0].value == -1):
        from emu.valu import BindError

        raise BindError(f"named barrier {inst.operands[0]}: only the workgroup barrier (-1) is emulated")
    return lambda w: _signal(w)


def bind_barrier_wait(inst, ctx):
    return lambda w: None if _may_pass(w) else BLOCK


def bind_endpgm(inst, ctx):
    def step(w):
        for p in w.pending:  # everything in flight completes when the wave ends
            p.land()
        w.pending = []
        w.done = True
        return END

    return step


def bind_code_end(inst, ctx):
    """s_code_end pads the code after the last s_endpgm: reaching one is an error."""

    def step(w):
        raise ExecutionError(
            f"{ctx.kernel}: a wave reached s_code_end at 0x{inst.address:x}, the padding after the kernel's end"
        )

    return step


def _nothing(inst, ctx):
    return lambda w: None


# Scheduling hints, cache controls, messages: nothing the emulator models changes.
NO_OPS = (
    "s_nop",
    "s_sleep",
    "s_setprio",
    "s_delay_alu",
    "s_wait_alu",
    "s_clause",
    "s_sendmsg",
    "s_sendmsghalt",
    "s_inst_prefetch",
    "s_set_inst_prefetch_distance",
    "s_dcache_inv",
    "s_dcache_wb",
    "s_icache_inv",
    "buffer_wbinvl1",
    "buffer_wbinvl1_vol",
    "buffer_inv",
    "buffer_wbl2",
    "buffer_gl0_inv",
    "buffer_gl1_inv",
    "global_inv",
    "global_wb",
    "global_wbinv",
    "s_ttracedata",
    "s_wait_idle",
    "s_waitcnt_depctr",
    "s_wait_event",
    "s_prefetch_inst",
    "s_prefetch_data",
)


def _entries():
    out = {name: _branch(cond) for name, cond in BRANCHES.items()}
    out["s_waitcnt"] = bind_waitcnt
    out.update({name: bind_gfx12_wait(c) for name, c in _GFX12_WAITS.items()})
    out.update({name: bind_gfx12_packed(f) for name, f in _GFX12_PACKED.items()})
    out["s_barrier"] = bind_barrier
    out["s_barrier_signal"] = bind_barrier_signal
    out["s_barrier_wait"] = bind_barrier_wait
    out["s_endpgm"] = bind_endpgm
    out["s_code_end"] = bind_code_end
    out.update({name: _nothing for name in NO_OPS})
    return out


register(_entries())
