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
takes the blocks at the first, middle and last position of every axis (so
every corner block, and the edge block of every axis with a remainder),
crossed with every workgroup along the NumericCheck's `whole` axes (every
split-K slice of the tiles it runs), and the comparison covers the output
elements those blocks wrote (those whose bytes differ from the initial
fill). The log says so; no case is shrunk.

A catalog's verification (rocke build --verify, rocke verify) launches
pick()'s few workgroups of a full-size problem instead, and outcome() gives
its verdict as data: ok, or the largest error and the first wrong element.
"""

import dataclasses
import itertools
import math

import numpy as np

from emu import emu
from family import bound
from interp.interp import run as interpret

# Above this many workgroups a gate runs a sample: emulating a workgroup costs
# seconds, and the blocks beyond the first, middle and last of an axis run
# the same code on other offsets.
SAMPLE_LIMIT = 4


class Mismatch(AssertionError):
    """The emulated code object's output differs from numpy."""


def sample(grid, whole=()):
    """The workgroups to launch: None (all of them) up to SAMPLE_LIMIT, else
    the first, middle and last position of each axis, and every position of
    the `whole` axes (NumericCheck.whole), crossed."""
    grid = tuple(grid) + (1,) * (3 - len(grid))
    if math.prod(grid) <= SAMPLE_LIMIT:
        return None
    picks = [range(n) if axis in whole else sorted({0, n // 2, n - 1}) for axis, n in enumerate(grid)]
    return list(itertools.product(*picks))


def pick(grid, count, rng, whole=()):
    """The workgroups a verification launches, in launch order: `count` output
    tiles of `grid` (all of them if it has no more), each with every
    workgroup along the `whole` axes (NumericCheck.whole: split-K slices).
    The tiles are always the first and the last (the first and last block of
    every axis; the last is the edge block of every axis with a remainder,
    being the partial one), then tiles drawn without replacement by numpy
    Generator `rng` from the others, strictly interior ones first."""
    grid = tuple(grid) + (1,) * (3 - len(grid))
    if count < 1:
        raise ValueError(f"pick: expected a positive number of workgroups, got {count}")
    tiles = tuple(1 if axis in whole else n for axis, n in enumerate(grid))
    total = math.prod(tiles)
    if total <= count:
        chosen = list(np.ndindex(*tiles))
    else:
        chosen = list(dict.fromkeys([(0, 0, 0), tuple(n - 1 for n in tiles)]))
        drawn = np.stack(np.unravel_index(rng.permutation(total), tiles), axis=1)
        limits = np.array(tiles)
        interior = ((drawn > 0) & (drawn < limits - 1) | (limits <= 2)).all(axis=1)
        for at in drawn[np.argsort(~interior, kind="stable")]:
            if len(chosen) == count:
                break
            if tuple(int(c) for c in at) not in chosen:
                chosen.append(tuple(int(c) for c in at))
    spans = [range(n) if axis in whole else None for axis, n in enumerate(grid)]
    return [full for tile in chosen for full in itertools.product(*[span or (t,) for span, t in zip(spans, tile)])]


def pick_among(workgroups, count, rng):
    """`count` of `workgroups` (all of them if they are no more), in their
    order: the first and the last, then ones drawn without replacement by
    numpy Generator `rng` (a chained kernel's: Chained.workgroups)."""
    if len(workgroups) <= count:
        return list(workgroups)
    drawn = rng.choice(len(workgroups) - 2, count - 2, replace=False) + 1
    return [workgroups[i] for i in sorted({0, len(workgroups) - 1, *drawn.tolist()})]


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
    covered: dict | None = None  # output index -> the elements compared (Chained.covered); None: all written

    def written(self):
        """Every array argument's elements whose bytes the launch changed, by index."""
        return {i: _written(self.numeric.args[i], a, np.shape(a)) for i, a in self.initial.items()}

    def log(self):
        """The lines a gate logs about the run."""
        r = self.result
        lines = [f"{self.case_id}: {r.instructions} instructions in {r.waves} waves, {r.seconds:.2f} s"]
        if self.sampled is not None:
            lines.append(
                f"{self.case_id}: sampled {len(self.sampled)} of {int(np.prod(self.numeric.grid))} workgroups (the "
                f"first, middle and last of each axis{_whole(self.numeric.whole)}); compared the elements they wrote"
            )
        return lines


def _whole(axes):
    """What the log says of the axes a sample runs whole."""
    return "".join(f", every one along {'xyz'[axis]}" for axis in axes)


def run(
    case_id,
    numeric,
    tc,
    code_object,
    kernel_name,
    block,
    figures=False,
    program=None,
    workgroups=None,
    trace=False,
    covered=None,
):
    """Launch the case's code object on `numeric`'s inputs (a sample of a
    wide grid); Mismatch naming the case if the emulator lacks a mnemonic of
    the code object (executed or not) or stops on an error. `program`: the
    code object's kernel as emu.program decoded it, when the caller has it
    (decoding is a tenth of a gate's time); else it is decoded here.
    `workgroups`: the ones to launch (pick()), else sample()'s. `trace`: the
    Result keeps the emulator's trace (emu/trace.py), for the cost model.
    `covered`: the only output elements to compare (Chained.covered)."""
    chosen = sample(numeric.grid, numeric.whole) if workgroups is None else list(workgroups)
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
            program, grid=numeric.grid, block=block, args=numeric.args, workgroups=chosen, figures=figures, trace=trace
        )
    except emu.EmuError as e:
        raise Mismatch(f"{case_id} ({tc.flavor}, machine): {type(e).__name__}: {e}") from None
    return Run(case_id, numeric, chosen, initial, result, covered)


def _compared(launched, index, want):
    """(got, want, where) of output argument `index`: what the launch wrote
    and its bound.Expected, over every element (a whole grid) or over the
    elements the sampled workgroups wrote, flattened, and `where` each
    compared element's index in the output (None when none was written);
    of a chained launch, only the covered elements it wrote."""
    numeric = launched.numeric
    shape = np.shape(want.values)
    got = np.asarray(numeric.decode(numeric.args[index]), np.float64).reshape(shape)
    if launched.sampled is None:
        return got, want, np.ones(shape, bool)
    written = _written(numeric.args[index], launched.initial[index], shape)
    if launched.covered is not None:
        written &= np.asarray(launched.covered[index]).reshape(shape)
    if not written.any():
        return got[written], want, None
    return (
        got[written],
        bound.Expected(want.values[written], want.magnitudes[written], want.length, want.dtype),
        written,
    )


def outcome(launched):
    """The verdict of a launch as data: {"result": "ok"} when every output
    element the launched workgroups wrote is within its bound, else
    {"result": "mismatch", "argument": the output's index, "wrong": how many
    elements are outside, "of": how many were compared, "largest_error": the
    largest |got - reference| ("inf" where an element is NaN or infinite),
    "first_wrong": {"index", "got", "expected", "bound"} of the first wrong
    element in row-major order}. An output the workgroups wrote nothing of
    is a mismatch with "wrong" and "of" 0, a null largest error and no element."""
    for index, full in launched.numeric.expected.items():
        got, want, where = _compared(launched, index, full)
        if where is None:
            return {"result": "mismatch", "argument": index, "wrong": 0, "of": 0, "largest_error": None}
        miss = want.misses(got).reshape(-1)
        if not miss.any():
            continue
        flat_got, values, bounds = got.reshape(-1), np.reshape(want.values, -1), np.reshape(want.bound(), -1)
        errors = np.abs(flat_got - values)
        first = int(np.argmax(miss))
        at = np.argwhere(where)[first]
        return {
            "result": "mismatch",
            "argument": index,
            "wrong": int(miss.sum()),
            "of": int(miss.size),
            "largest_error": _number(np.max(np.where(np.isnan(errors), np.inf, errors))),
            "first_wrong": {
                "index": [int(i) for i in at],
                "got": _number(flat_got[first]),
                "expected": _number(values[first]),
                "bound": _number(bounds[first]),
            },
        }
    return {"result": "ok"}


def _number(x):
    """A float as JSON holds it: NaN and infinities as their names."""
    x = float(x)
    return x if np.isfinite(x) else repr(x)


def compare(launched, tc, kernel_of):
    """Mismatch naming the case, with the interpreter's verdict on kernel_of()
    (the case's IR kernel), if an output element the launched workgroups
    wrote is outside its bound."""
    case_id, numeric = launched.case_id, launched.numeric
    for index, full in numeric.expected.items():
        got, want, where = _compared(launched, index, full)
        if where is None:
            raise Mismatch(
                f"{case_id} ({tc.flavor}, machine): the sampled workgroups wrote nothing of argument {index}"
            )
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
