"""A kernel ready to run: its instructions decoded from the disassembly and
each bound to its step, once.

    prog = Program(code_object, kernel, disassembly)
    prog.steps[i](wave)      # execute instruction i

An instruction the tables lack, or one whose operands or modifiers its
entry does not handle, is bound to a step that raises Unimplemented naming
the mnemonic, the address and the kernel: it is never skipped.
"""

import dataclasses

from arch import arch as archs
from emu import decode, dpp
from emu import operands as O
from emu import table
from emu.errors import ArchNotEmulated, ExecutionError, Unimplemented
from emu.memory import APERTURES
from emu.valu import BindError

# The archs this emulator executes, and what differs between their generations:
# the wait counters each kind of memory operation counts in, what a 16-bit
# VALU result does to the other half of its register, and where the
# workgroup ids are (gfx12 has them in ttmp9/ttmp7 as well).
EMULATED = ("gfx942", "gfx950", "gfx1201")
GENERATIONS = {
    "gfx9": {"counters": {"load": "vm", "store": "vm", "lds": "lgkm", "smem": "lgkm"}, "high16": "", "ttmp_ids": False},
    "gfx12": {
        "counters": {"load": "load", "store": "store", "lds": "ds", "smem": "km"},
        "high16": "preserve",
        "ttmp_ids": True,
    },
}
# Modifiers some entry reads; any other one makes the instruction unimplemented.
KNOWN_MODIFIERS = frozenset(
    {
        "offset",
        "offset0",
        "offset1",
        "offen",
        "lds",
        "glc",
        "slc",
        "dlc",
        "nt",
        "sc0",
        "sc1",
        "scope",
        "th",
        "op_sel",
        "op_sel_hi",
        "neg_lo",
        "neg_hi",
        "clamp",
        "mul",
        "div",
        "dst_sel",
        "dst_unused",
        "src0_sel",
        "src1_sel",
        "cbsz",
        "abid",
        "blgp",
        "bitop3",
        "idxen",
    }
)


def check_arch(arch):
    if arch not in EMULATED:
        raise ArchNotEmulated(f"arch {arch} is not emulated: the emulator runs {', '.join(EMULATED)}")
    return archs.get(arch).generation


@dataclasses.dataclass
class Context:
    kernel: str
    arch: str
    generation: str
    lanes: int
    counters: dict
    high16: str
    apertures: dict
    index: dict  # address -> instruction index

    def index_of(self, address, inst):
        if address not in self.index:
            raise BindError(f"its target 0x{address:x} is not an instruction of {self.kernel}")
        return self.index[address]


def _unimplemented(inst, ctx, detail=""):
    error = Unimplemented(inst.mnemonic, inst.address, ctx.kernel, detail)

    def step(w):
        raise error

    step.unimplemented = error
    return step


def bind(inst, ctx):
    """The step of one instruction (see table.py)."""
    unknown = sorted(set(inst.modifiers) - KNOWN_MODIFIERS - dpp.MODIFIERS)
    if unknown:
        return _unimplemented(inst, ctx, f"modifier {unknown[0]}")
    if inst.pair is not None:
        return _bind_pair(inst, ctx)
    binder = table.TABLE.get(table.normalize(inst.mnemonic))
    if binder is None or (inst.mnemonic.endswith("_dpp") and not getattr(binder, "dpp", False)):
        return _unimplemented(inst, ctx)
    try:
        return binder(inst, ctx)
    except (BindError, O.OperandError, KeyError, ValueError) as e:
        return _unimplemented(inst, ctx, str(e))


def _dual_half(inst):
    return dataclasses.replace(inst, mnemonic="v_" + inst.mnemonic[len("v_dual_") :], pair=None)


def _bind_pair(inst, ctx):
    """A VOPD pair: both halves read their sources before either writes."""
    x, y = _dual_half(inst), _dual_half(inst.pair)
    sx, sy = bind(x, ctx), bind(y, ctx)
    for half, step in ((x, sx), (y, sy)):
        if hasattr(step, "unimplemented"):
            return _unimplemented(inst, ctx, f"its half {half.mnemonic}: {step.unimplemented}")
    dx, dy = O.parse(x.operands[0]).index, O.parse(y.operands[0]).index
    reads_x = {O.parse(t).index for t in y.operands[1:] if O.parse(t).kind == "v"}
    reads_y = {O.parse(t).index for t in x.operands[1:] if O.parse(t).kind == "v"}
    if dx not in reads_x:
        return lambda w: (sx(w), sy(w))[-1]
    if dy not in reads_y:
        return lambda w: (sy(w), sx(w))[-1]

    def both(w):
        old = w.v[:, dx].copy()
        sx(w)
        new = w.v[:, dx].copy()
        w.v[:, dx] = old
        sy(w)
        w.v[:, dx] = new

    return both


class Program:
    def __init__(self, kernel, disassembly):
        self.kernel = kernel
        generation = check_arch(kernel.arch)
        facts = GENERATIONS[generation]
        self.instructions = decode.parse(disassembly, kernel.name)
        index = {inst.address: i for i, inst in enumerate(self.instructions)}
        if kernel.entry not in index:
            raise ExecutionError(
                f"kernel {kernel.name}: its entry 0x{kernel.entry:x} is not an instruction of the disassembly"
            )
        self.entry = index[kernel.entry]
        self.context = Context(
            kernel.name, kernel.arch, generation, kernel.wave_size, facts["counters"], facts["high16"], APERTURES, index
        )
        self.ttmp_ids = facts["ttmp_ids"]
        self.steps = [bind(inst, self.context) for inst in self.instructions]
        self.classes = [table.instruction_class(inst.mnemonic) for inst in self.instructions]

    def unimplemented(self):
        """The Unimplemented error of every instruction bound to one, in address order."""
        return [s.unimplemented for s in self.steps if hasattr(s, "unimplemented")]
