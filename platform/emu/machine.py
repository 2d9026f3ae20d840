"""Launching a kernel: the dispatch the HIP runtime makes, the initial state
of every wave as the hardware sets it (LLVM's AMDGPUUsage, "Initial Kernel
Execution State"), and the run of each workgroup's waves around barriers.

    result = launch(loaded, "kernel", grid=(gx, gy, gz), block=(bx, by, bz), args=[...])

grid counts workgroups. Each arg of the kernel's explicit arguments, in
order: a numpy array (a global buffer: mapped, and written back into the
array when the run ends), None (a null pointer), a Python int or float, or
a Scalar (a value with its numpy type). Hidden arguments are filled as HIP
fills them.

Waves of a workgroup run in turn, each until it ends or waits at a barrier;
workgroups run one after another in the order given (by default x fastest,
then y, then z). Everything is deterministic.
"""

import dataclasses
import struct
import time

import numpy as np

from emu import collector, state
from emu.errors import ExecutionError, LaunchError
from emu import trace as tracing
from emu.figures import Figures
from emu.memory import APERTURES, DISPATCH_PACKET, DISPATCH_PACKET_BYTES, Memory
from emu.table import BLOCK

# Instructions one wave may execute before the launch is called runaway.
STEP_BUDGET = 50_000_000
_PACKED_IDS = True  # gfx90a, gfx940+ and gfx11+ pack the workitem ids in v0 (all emulated archs)


@dataclasses.dataclass(frozen=True)
class Scalar:
    value: object
    dtype: object  # numpy dtype of the argument's bytes


@dataclasses.dataclass
class Result:
    counts: list  # executions of each instruction, by index
    classes: dict  # instruction class -> executions (all waves)
    waves: int
    lane_instructions: int  # active lanes summed over executed vector instructions
    seconds: float
    waits: dict  # wait address -> (executions, operations it retired)
    lds_out_of_range: int
    workgroups: list
    figures: dict | None = None  # figures.Figures.summary() when the launch counted them
    trace: object = None  # trace.Trace when the launch traced

    @property
    def instructions(self):
        return sum(self.counts)


class Workgroup:
    def __init__(self, ident, lds_bytes):
        self.id = ident
        self.lds = np.zeros(lds_bytes, np.uint8)
        self.waves = []


# -- hidden arguments, as HIP fills them (code object v5) --------------------------------------


def _hidden(kind, grid, block, dynamic_lds, queue):
    blocks = grid
    items = [g * b for g, b in zip(grid, block)]
    values = {
        "hidden_block_count_x": blocks[0],
        "hidden_block_count_y": blocks[1],
        "hidden_block_count_z": blocks[2],
        "hidden_group_size_x": block[0],
        "hidden_group_size_y": block[1],
        "hidden_group_size_z": block[2],
        "hidden_remainder_x": items[0] % block[0],
        "hidden_remainder_y": items[1] % block[1],
        "hidden_remainder_z": items[2] % block[2],
        "hidden_global_offset_x": 0,
        "hidden_global_offset_y": 0,
        "hidden_global_offset_z": 0,
        "hidden_grid_dims": 1 + (grid[1] * block[1] > 1 or grid[2] * block[2] > 1) + (grid[2] * block[2] > 1),
        "hidden_dynamic_lds_size": dynamic_lds,
        "hidden_private_base": APERTURES["private_base"] >> 32,
        "hidden_shared_base": APERTURES["shared_base"] >> 32,
        "hidden_queue_ptr": queue,
        "hidden_none": 0,
        "hidden_hostcall_buffer": 0,
        "hidden_printf_buffer": 0,
        "hidden_default_queue": 0,
        "hidden_completion_action": 0,
        "hidden_multigrid_sync_arg": 0,
        "hidden_heap_v1": 0,
    }
    if kind not in values:
        raise LaunchError(f"hidden argument {kind}: not one the emulator fills ({', '.join(sorted(values))})")
    return values[kind]


def _encode(arg, value, memory, arrays):
    """The bytes of explicit argument `arg` for `value`."""
    if arg.kind == "global_buffer":
        if value is None:
            return struct.pack("<Q", 0)
        if not isinstance(value, np.ndarray):
            raise LaunchError(
                f"argument {arg.name}: expected a numpy array or None for a global buffer, got {type(value).__name__}"
            )
        address = memory.place(value, arg.name)
        arrays.append((value, address))
        return struct.pack("<Q", address)
    if arg.kind != "by_value":
        raise LaunchError(
            f"argument {arg.name}: value kind {arg.kind} is not one the emulator passes (global_buffer, by_value)"
        )
    if isinstance(value, Scalar):
        raw = np.array([value.value], value.dtype).tobytes()
    elif isinstance(value, (bool, np.bool_)) or value is None:
        raise LaunchError(f"argument {arg.name}: expected a number for a {arg.size}-byte value, got {value!r}")
    elif isinstance(value, (int, np.integer)):
        v = int(value)
        if not -(1 << (8 * arg.size - 1)) <= v < 1 << (8 * arg.size):
            raise LaunchError(f"argument {arg.name}: {v} does not fit its {arg.size} bytes")
        raw = (v & ((1 << (8 * arg.size)) - 1)).to_bytes(arg.size, "little")
    elif isinstance(value, (float, np.floating)) and arg.size in (4, 8):
        raw = struct.pack("<f" if arg.size == 4 else "<d", float(value))
    else:
        raise LaunchError(
            f"argument {arg.name}: expected a number for a {arg.size}-byte value, got {type(value).__name__}"
        )
    if len(raw) != arg.size:
        raise LaunchError(f"argument {arg.name}: {len(raw)} bytes given for its {arg.size}")
    return raw


def _kernarg_segment(kernel, args, grid, block, dynamic_lds, memory, queue):
    explicit = kernel.explicit_args
    if len(args) != len(explicit):
        names = ", ".join(a.name for a in explicit)
        raise LaunchError(f"kernel {kernel.name}: expected {len(explicit)} arguments ({names}), got {len(args)}")
    size = max([kernel.kernarg_size] + [a.offset + a.size for a in kernel.args])
    segment = bytearray(size)
    arrays = []
    for arg, value in zip(explicit, args):
        segment[arg.offset : arg.offset + arg.size] = _encode(arg, value, memory, arrays)
    for arg in kernel.args:
        if arg.hidden:
            v = _hidden(arg.kind, grid, block, dynamic_lds, queue)
            segment[arg.offset : arg.offset + arg.size] = (v & ((1 << (8 * arg.size)) - 1)).to_bytes(arg.size, "little")
    return bytes(segment), arrays


def _dispatch_packet(kernel, grid, block, dynamic_lds, kernarg, kd_address):
    packet = bytearray(DISPATCH_PACKET_BYTES)
    dims = 1 + (grid[1] * block[1] > 1 or grid[2] * block[2] > 1) + (grid[2] * block[2] > 1)
    fields = {
        "header": 2,
        "setup": dims,  # HSA_PACKET_TYPE_KERNEL_DISPATCH
        "workgroup_size_x": block[0],
        "workgroup_size_y": block[1],
        "workgroup_size_z": block[2],
        "grid_size_x": grid[0] * block[0],
        "grid_size_y": grid[1] * block[1],
        "grid_size_z": grid[2] * block[2],
        "private_segment_size": kernel.private_segment_size,
        "group_segment_size": kernel.group_segment_size + dynamic_lds,
        "kernel_object": kd_address,
        "kernarg_address": kernarg,
        "completion_signal": 0,
    }
    for name, value in fields.items():
        offset, fmt = DISPATCH_PACKET[name]
        struct.pack_into(fmt, packet, offset, value)
    return bytes(packet)


# -- initial wave state --------------------------------------------------------------------


def _user_sgprs(kernel, addresses, kernarg_bytes):
    values = []
    for name, count in kernel.user_sgprs:
        v = addresses.get(name, 0)
        values += [(v >> (32 * i)) & 0xFFFFFFFF for i in range(count)]
    first = 4 * kernel.kernarg_preload_offset
    for i in range(kernel.kernarg_preload):
        values.append(int.from_bytes(kernarg_bytes[first + 4 * i : first + 4 * i + 4].ljust(4, b"\0"), "little"))
    return values


def new_wave(program, index, wg, block, user, lanes):
    kernel = program.kernel
    w = state.Wave(index, lanes, 512 if lanes == 64 else 256, 256, wg)
    w.v[:] = state.POISON
    w.a[:] = state.POISON
    for i, v in enumerate(user):
        w.s[i] = v
    at = kernel.user_sgpr_count
    for axis in kernel.workgroup_ids:
        w.s[at] = wg.id["xyz".index(axis)]
        at += 1
    if kernel.workgroup_info:
        w.s[at] = 0
        at += 1
    if kernel.private_segment:
        w.s[at] = 0  # the private segment wave offset: scratch is per lane here
    if program.ttmp_ids:  # gfx12's architected SGPRs (LLVM reads the wave id as ttmp8[29:25])
        w.s[state.TTMP + 9] = wg.id[0]
        w.s[state.TTMP + 7] = wg.id[1] & 0xFFFF | (wg.id[2] & 0xFFFF) << 16
        w.s[state.TTMP + 8] = (index & 0x1F) << 25
    threads = block[0] * block[1] * block[2]
    t = index * lanes + np.arange(lanes)
    x, y, z = t % block[0], (t // block[0]) % block[1], t // (block[0] * block[1])
    w.v[:, 0] = (x | y << 10 | z << 20).astype(np.uint32)
    w.set_exec(state.bools_to_mask(t < threads))
    w.private = np.zeros((lanes, max(kernel.private_segment_size, 0)), np.uint8)
    w.pc = program.entry
    return w


# -- running ---------------------------------------------------------------------------


def _run_wave(program, w, counts, steps):
    """Run `w` until it ends or blocks; True if it changed anything."""
    pc, before, n = w.pc, (w.pc, w.barriers), 0
    limit = STEP_BUDGET - w.executed
    try:
        while True:
            r = steps[pc](w)
            if r is None:
                counts[pc] += 1
                pc += 1
            elif r >= 0:
                counts[pc] += 1
                pc = r
            elif r == BLOCK:
                break
            else:  # END
                counts[pc] += 1
                break
            n += 1
            if n > limit:
                raise ExecutionError(
                    f"kernel {program.kernel.name}: a wave executed {STEP_BUDGET} instructions without ending"
                )
    except IndexError:
        if pc >= len(steps):
            raise ExecutionError(
                f"kernel {program.kernel.name}: a wave ran past its last instruction "
                f"(0x{program.instructions[-1].address:x})"
            ) from None
        raise
    w.pc = pc
    w.executed += n
    return n > 0 or (w.pc, w.barriers) != before


def run_workgroup(program, wg, counts, steps=None):
    """Run workgroup `wg` to its end; `steps` (default the program's) are what each instruction runs."""
    with np.errstate(all="ignore"), collector.paused():  # float overflow and NaN are results in the ISA
        _run_waves(program, wg, counts, program.steps if steps is None else steps)


def _run_waves(program, wg, counts, steps):
    while True:
        live = [w for w in wg.waves if not w.done]
        if not live:
            return
        if not any([_run_wave(program, w, counts, steps) for w in live]):
            at = ", ".join(f"wave {w.index} at 0x{program.instructions[w.pc].address:x}" for w in live)
            raise ExecutionError(
                f"kernel {program.kernel.name}: workgroup {wg.id} cannot go on: {at} wait at barriers no other wave "
                "reaches"
            )


def _triple(v, what, least=1):
    v = tuple(v) if isinstance(v, (tuple, list)) else (v,)
    if not 1 <= len(v) <= 3 or not all(isinstance(x, (int, np.integer)) and x >= least for x in v):
        kind = "positive" if least else "non-negative"
        raise LaunchError(f"{what}: expected 1 to 3 {kind} integers, got {v!r}")
    return tuple(int(x) for x in v) + ((1,) if least else (0,)) * (3 - len(v))


def workgroup_order(grid):
    return [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])]


def launch(program, *, grid, block, args, dynamic_lds=0, workgroups=None, kd_address=0, figures=False, trace=False):
    """Run `program` (a Program) over `grid` workgroups of `block` threads; see the module doc.
    figures=True counts the dynamic figures; trace=True also records the trace (trace.py)."""
    kernel = program.kernel
    grid, block = _triple(grid, "grid"), _triple(block, "block")
    threads = block[0] * block[1] * block[2]
    lanes = kernel.wave_size
    if threads > 1024:
        raise LaunchError(f"block {block}: {threads} threads, more than a workgroup's 1024")
    lds_bytes = kernel.group_segment_size + dynamic_lds
    chosen = workgroup_order(grid) if workgroups is None else [_triple(g, "workgroup", 0) for g in workgroups]
    for g in chosen:
        if not all(0 <= c < n for c, n in zip(g, grid)):
            raise LaunchError(f"workgroup {g} is outside the grid {grid}")
    memory = Memory()
    queue = memory.alloc(256, "queue")
    kernarg, arrays = _kernarg_segment(kernel, list(args), grid, block, dynamic_lds, memory, queue)
    # HIP's kernarg buffers are larger than the segment; LLVM's scalar loads
    # read whole dwordx4/x8 groups past the last argument.
    padded = kernarg + bytes(-len(kernarg) % 64 + 64)
    kernarg_address = memory.place(np.frombuffer(padded, np.uint8), "kernarg")
    kd_address = kd_address or getattr(program, "kd_address", 0)
    packet = _dispatch_packet(kernel, grid, block, dynamic_lds, kernarg_address, kd_address)
    addresses = {
        "dispatch_ptr": memory.place(np.frombuffer(packet, np.uint8), "dispatch packet"),
        "queue_ptr": queue,
        "kernarg_segment_ptr": kernarg_address,
        "private_segment_size": kernel.private_segment_size,
    }
    user = _user_sgprs(kernel, addresses, kernarg)
    counts = [0] * len(program.steps)
    counted = Figures(kernel.arch) if figures or trace else None
    steps = tracing.steps(program) if trace else program.steps
    waits, waves, out_of_range, ran = {}, 0, 0, []
    start = time.perf_counter()
    for ident in chosen:
        wg = Workgroup(ident, lds_bytes)
        wg.waves = [new_wave(program, i, wg, block, user, lanes) for i in range(-(-threads // lanes))]
        for w in wg.waves:
            w.memory, w.figures = memory, counted
        run_workgroup(program, wg, counts, steps)
        waves += len(wg.waves)
        if trace:
            ran.append([w.trace for w in wg.waves])
        for w in wg.waves:
            out_of_range += w.lds_out_of_range
            for address, landed in w.waits:
                n, total = waits.get(address, (0, 0))
                waits[address] = (n + 1, total + landed)
    seconds = time.perf_counter() - start
    for array, address in arrays:
        array.reshape(-1).view(np.uint8)[:] = memory.buffer(address)[: array.nbytes]
    classes = {}
    for c, n in zip(program.classes, counts):
        classes[c] = classes.get(c, 0) + n
    lane_instructions = (
        sum(n for c, n in zip(program.classes, counts) if c not in ("salu", "smem", "branch", "wait", "barrier"))
        * lanes
    )
    summary = counted.summary() if counted is not None else None
    traced = tracing.collect(ran, counted) if trace else None
    return Result(counts, classes, waves, lane_instructions, seconds, waits, out_of_range, chosen, summary, traced)
