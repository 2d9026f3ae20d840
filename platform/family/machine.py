"""The machine gate's check of one case: the code object LLVM built from the
case's emitted IR, run in the emulator (platform/emu) on the numeric gate's
inputs (a NumericCheck: Family.numeric, or as the gates read it, checks.py),
against the family's numpy reference within the numeric gate's per-element
bounds (bound.py).

    launched = check(case_id, numeric, tc, code_object, kernel_name, block, kernel_of)

returns the Run (launched.log(): the lines the gate logs; launched.result:
the emulator's counts and waits) or raises Mismatch, an AssertionError
naming the case, the flavor and, when the emulator and numpy disagree,
whether the reference interpreter agrees with numpy on the same inputs (it
runs kernel_of(), the case's IR kernel, asked for only then). Before it
runs, every instruction of the code object, executed or not, must have
semantics: the check names the mnemonics the emulator lacks (the coverage
check). run() launches without comparing (rocke isa --run).

A grid of more than SAMPLE_LIMIT workgroups is not run whole: the launch
takes the blocks at the first two and last two positions of every axis
(so every corner and edge block), and the comparison covers the output
elements those blocks wrote (those whose bytes differ from the initial
fill). The log says so; no case is shrunk.
"""

import dataclasses
import itertools

import numpy as np

from emu import emu
from family import bound
from interp.interp import run as interpret

SAMPLE_LIMIT = 64


class Mismatch(AssertionError):
    """The emulated code object's output differs from numpy."""


def sample(grid):
    """The workgroups to launch: None (all of them) up to SAMPLE_LIMIT, else
    the first two and last two positions of each axis, crossed."""
    grid = tuple(grid) + (1,) * (3 - len(grid))
    if grid[0] * grid[1] * grid[2] <= SAMPLE_LIMIT:
        return None
    picks = [sorted({p for p in (0, 1, n - 2, n - 1) if 0 <= p < n}) for n in grid]
    return list(itertools.product(*picks))


def _interpreter_verdict(kernel, numeric, initial):
    """Whether the reference interpreter running `kernel` on the inputs
    `initial` (every argument as it was before the launch) matches numpy."""
    fresh = dataclasses.replace(
        numeric, args=[np.array(initial[i]) if i in initial else a for i, a in enumerate(numeric.args)]
    )
    try:
        interpret(kernel, fresh.grid, fresh.args)
        fresh.check("interpreter")
    except AssertionError:
        return "the reference interpreter does not match numpy either"
    return "the reference interpreter matches numpy: the code object (or the emulator) is wrong"


def _written(arg, initial, shape):
    """The elements of `arg` whose bytes differ from `initial`, in `shape`."""
    changed = arg.view(np.uint8).reshape(*arg.shape, -1) != initial.view(np.uint8).reshape(*initial.shape, -1)
    return changed.any(axis=-1).reshape(shape)


@dataclasses.dataclass
class Run:
    """One case launched in the emulator: its id, its NumericCheck (whose args
    now hold the outputs), the workgroups launched (None: all), every array
    argument's bytes before the launch (by index), and the emulator's Result
    (counts, waits, figures)."""

    case_id: str
    numeric: object
    sampled: list | None
    initial: dict
    result: object

    def log(self):
        """The lines a gate logs about the run."""
        r = self.result
        lines = [f"{self.case_id}: {r.instructions} instructions in {r.waves} waves, {r.seconds:.2f} s"]
        if self.sampled is not None:
            lines.append(
                f"{self.case_id}: sampled {len(self.sampled)} of {int(np.prod(self.numeric.grid))} workgroups (the "
                "first and last two of each axis); compared the elements they wrote"
            )
        return lines


def run(case_id, numeric, tc, code_object, kernel_name, block, figures=False, program=None):
    """Launch the case's code object on `numeric`'s inputs (a sample of a
    wide grid); Mismatch naming the case if the emulator lacks a mnemonic of
    the code object (executed or not) or stops on an error. `program`: the
    code object's kernel as emu.program decoded it, when the caller has it
    (decoding is a tenth of a gate's time); else it is decoded here."""
    chosen = sample(numeric.grid)
    initial = {i: np.array(a, copy=True) for i, a in enumerate(numeric.args) if isinstance(a, np.ndarray)}
    try:
        if program is None:
            program = emu.program(code_object, kernel_name, tc)
        missing = program.unimplemented()
        if missing:  # coverage: every instruction of the code object, executed or not
            names = sorted({e.mnemonic for e in missing})
            raise Mismatch(
                f"{case_id} ({tc.flavor}, machine): {len(names)} mnemonics the emulator lacks: {', '.join(names)}; "
                f"first: {missing[0]}"
            )
        result = emu.launch(
            program, grid=numeric.grid, block=block, args=numeric.args, workgroups=chosen, figures=figures
        )
    except emu.EmuError as e:
        raise Mismatch(f"{case_id} ({tc.flavor}, machine): {type(e).__name__}: {e}") from None
    return Run(case_id, numeric, chosen, initial, result)


def compare(launched, tc, kernel_of):
    """Mismatch naming the case, with the interpreter's verdict on kernel_of()
    (the case's IR kernel), if an output element the launched workgroups
    wrote is outside its bound."""
    case_id, numeric = launched.case_id, launched.numeric
    for index, want in numeric.expected.items():
        got = np.asarray(numeric.decode(numeric.args[index]), np.float64).reshape(np.shape(want.values))
        if launched.sampled is not None:
            written = _written(numeric.args[index], launched.initial[index], np.shape(want.values))
            if not written.any():
                raise Mismatch(
                    f"{case_id} ({tc.flavor}, machine): the sampled workgroups wrote nothing of argument {index}"
                )
            got = got[written]
            want = bound.Expected(want.values[written], want.magnitudes[written], want.length, want.dtype)
        try:
            want.check(got, f"{case_id} ({tc.flavor}, machine): argument {index}")
        except AssertionError as e:
            verdict = _interpreter_verdict(kernel_of(), numeric, launched.initial)
            raise Mismatch(f"{e}\n{case_id}: {verdict}") from None


def check(case_id, numeric, tc, code_object, kernel_name, block, kernel_of, program=None):
    """Run and compare one case: its Run. Mismatch if the numbers differ.
    `program` as for run()."""
    launched = run(case_id, numeric, tc, code_object, kernel_name, block, program=program)
    compare(launched, tc, kernel_of)
    return launched
