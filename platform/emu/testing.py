"""Hand-written instruction sequences run on one workgroup, for the semantics
tests: the same decoding, binding and scheduling as a real launch, without
a code object.

    wg = testing.workgroup("gfx942", ["v_add_u32_e32 v1, v0, v0"], waves=1)
    wg.waves[0].v[:, 0] = ...          # set up registers, LDS, memory
    testing.run(wg)
    wg.waves[0].v[:, 1]
"""

import numpy as np

from emu import emu  # noqa: F401  (registers the semantics)
from emu import machine
from emu import trace as tracing
from emu.figures import Figures
from emu.loader import Kernel
from emu.memory import Memory
from emu.program import Program

ENTRY = 0x1000


def disassembly(lines, name="t"):
    """objdump-like text of `lines` (4 bytes each) then s_endpgm."""
    body = [f"{ENTRY:016x} <{name}>:"]
    for i, line in enumerate(list(lines) + ["s_endpgm"]):
        body.append(f"\t{line} // {ENTRY + 4 * i:012X}: 00000000")
    return "\n".join(body) + "\n"


def kernel(arch, wave_size, lds=1024, private=64, name="t"):
    return Kernel(
        name=name,
        arch=arch,
        entry=ENTRY,
        group_segment_size=lds,
        private_segment_size=private,
        kernarg_size=0,
        wave_size=wave_size,
        user_sgprs=(),
        user_sgpr_count=0,
        kernarg_preload=0,
        kernarg_preload_offset=0,
        workgroup_ids=(),
        workgroup_info=False,
        private_segment=False,
        workitem_dims=1,
        rsrc1=0,
        rsrc2=0,
        rsrc3=0,
        args=(),
        sgpr_count=0,
        vgpr_count=0,
        agpr_count=0,
        uses_dynamic_stack=False,
    )


def workgroup(arch, lines, waves=1, wave_size=None, lds=1024, figures=False):
    wave_size = wave_size or (32 if arch.startswith("gfx12") else 64)
    program = Program(kernel(arch, wave_size, lds), disassembly(lines))
    wg = machine.Workgroup((0, 0, 0), lds)
    memory = Memory()
    wg.waves = [machine.new_wave(program, i, wg, (wave_size * waves, 1, 1), [], wave_size) for i in range(waves)]
    counted = Figures(arch) if figures else None
    for w in wg.waves:
        w.memory, w.figures = memory, counted
    wg.program, wg.memory, wg.figures = program, memory, counted
    return wg


def run(wg, trace=False):
    """Run `wg`; the executions of each instruction. trace=True records each wave's trace (trace.py)."""
    counts = [0] * len(wg.program.steps)
    machine.run_workgroup(wg.program, wg, counts, tracing.steps(wg.program) if trace else None)
    return counts


def lanes(wave, register):
    """The 32-bit values of VGPR `register` in every lane."""
    return np.array(wave.v[:, register])
