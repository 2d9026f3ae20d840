"""A catalog's kernels run in the emulator against numpy: what `rocke build
--verify` and `rocke verify DIR` share.

    results = check_problem([Kernel(fam, spec, arch, code_object, kernel_name, toolchain, path), ...], settings, model=True)

runs a problem's kernels in the order they run. Each code object (`path` in
its catalog) runs on random inputs of its exact problem: the family gives the full-size inputs, the reference and each
element's bound (Family.numeric_check of the row's spec, family.bound) and
the workgroup size (its kernel's, as the machine gate takes it);
platform/family/machine.py picks the workgroups (pick: the first and last
output tile, then random ones, each with every split-K slice that adds to
it), launches only those, and compares the output elements they wrote
(outcome). The inputs and the random tiles come from one generator seeded by
the catalog's seed and the code object's path, so a second run of the same
catalog launches the same workgroups on the same numbers.

The kernels of one problem run in turn (check_problem): a split-K
convolution's split kernel, then its reduce. A kernel whose family can follow
the one before (Family.chain: conv_fwd_split_k_reduce after the split kernel's
shaped workspace) is fed what that one's launched workgroups wrote, launches
as many of the workgroups reading it as the others launch tiles
(machine.pick_among: the first, the last and random ones), and its output is
compared with numpy's answer for the whole problem on the elements whose
partial sums were all written: a wrong
partial sum shows as a wrong output. Its result says which code object fed it
("after": that one's path). A kernel no family can follow is checked alone,
on random inputs of its own.

A result is {"result": "ok"}, a mismatch (machine.outcome: the largest error
and the first wrong element), or {"result": "error", "message": ...} where
the emulator cannot run the code object (a mnemonic it lacks, a fault). With
model=True (rocke build --verify, whose table shows the figures; `rocke
verify` shows none, and tracing every instruction costs a fifth of a
launch), a run result also holds "model": the cost model's figures for the whole grid
(platform/emu/model.py, from the trace of the launched workgroups, the
occupancy of the code object and the bytes its buffers hold, each moved
once): {"us": modelled microseconds, "peak": the fraction of the arch's
physical peak, "bound": what bounds it}, or {"none": why} where the model has
no figures for it. A MODEL, stated in perf_model.json, not a hardware time.
"""

import dataclasses
import json
import math

import numpy as np

from catalog.index import number
from emu import emu, model
from family import machine
from family.family import Case
from family.family import seed as path_seed

# index.json's "verify": the seed of every kernel's inputs and tiles, and how
# many output tiles each launches (`rocke build --verify N`).
SEED = 0
WORKGROUPS = 4


def settings(workgroups=WORKGROUPS, seed=SEED):
    """index.json's "verify" object; ValueError unless `workgroups` is at least 2
    (the first and the last tile are always run)."""
    if type(workgroups) is not int or workgroups < 2:
        raise ValueError(f"expected at least 2 workgroups to verify (the first and the last tile), got {workgroups!r}")
    if type(seed) is not int or seed < 0:
        raise ValueError(f"expected a non-negative integer seed, got {seed!r}")
    return {"seed": seed, "workgroups": workgroups}


def key(row):
    """Rows of one code object and one problem: verified (and modelled) once. A code object that serves problems
    of other sizes (GEMMs that differ only in m, n and k, the kernel's arguments) runs on each of them."""
    return row["path"], json.dumps(row["spec"], sort_keys=True)


def problems(rows):
    """[(key, rows)] of each problem's rows (one problem, arch and flavor) in
    the order they are given, which is the order its kernels run; the key is
    the tuple of its rows' key(): problems of one key are checked once."""
    groups = {}
    for r in rows:
        groups.setdefault((r.get("problem"), r["arch"], r["flavor"]), []).append(r)
    return [(tuple(key(r) for r in group), group) for group in groups.values()]


def spec_of(fam, obj):
    """The family's spec of a row's "spec" (its to_json()), read back by the
    class of the family's specs; ValueError names the family."""
    spec_class = type(fam.cases[0].spec)
    try:
        return spec_class.from_json(obj)
    except (TypeError, ValueError) as e:
        raise ValueError(f"expected a {fam.name} spec ({spec_class.__name__}), got {obj!r}: {e}") from None


@dataclasses.dataclass(frozen=True)
class Kernel:
    """One row's code object to check: its family, spec (spec_of), arch, bytes,
    symbol, Toolchain and path in its catalog."""

    fam: object
    spec: object
    arch: str
    code_object: bytes
    kernel_name: str
    toolchain: object
    path: str


def check_problem(kernels, verify, model):
    """The results of a problem's kernels (Kernel), in the order they run; `verify`
    is settings(), `model` whether each result holds the cost model's figures. The first is checked alone, each next one fed by the one before where its family
    can follow it (Family.chain; module doc), else checked alone."""
    results, before = [], None
    for k in kernels:
        result, before = _check(k, verify, before, model)
        results.append(result)
    return results


def _check(k, verify, before, model):
    """(result, (k, its machine.Run) or None where it could not run) of Kernel
    `k`, fed by `before`, the kernel before it and its Run (or None)."""
    case = Case("verify", k.arch, k.spec)  # the id names only the IR kernel, built here for its workgroup size
    rng = np.random.default_rng([verify["seed"], path_seed(k.path)])
    chained = None
    if before is not None and k.fam.chain is not None:
        chained = k.fam.chain(case, before[1].numeric.args, before[1].written(), rng)
    if chained is None:
        numeric = k.fam.numeric_check(case, rng)
        chosen, covered = machine.pick(numeric.grid, verify["workgroups"], rng, numeric.whole), None
    else:
        numeric, covered = chained.numeric, chained.covered
        chosen = machine.pick_among(chained.workgroups, verify["workgroups"], rng)
    block = k.fam.build(case).attrs["workgroup_size"]
    dram_bytes = sum(a.nbytes for a in numeric.args if isinstance(a, np.ndarray))
    try:
        emu.check_arch(k.arch)
        program = emu.program(k.code_object, k.kernel_name, k.toolchain)
        launched = machine.run(
            k.path,
            numeric,
            k.toolchain,
            k.code_object,
            k.kernel_name,
            block,
            program=program,
            workgroups=chosen,
            trace=model,
            covered=covered,
        )
    except (emu.ArchNotEmulated, emu.EmuError, machine.Mismatch) as e:
        return {"result": "error", "message": str(e)}, None
    result = machine.outcome(launched)
    if model:
        result["model"] = modelled(program, launched.result.trace, numeric.grid, block, k.toolchain, dram_bytes)
    if chained is not None:
        result["after"] = before[0].path
    return result, (k, launched)


def modelled(program, trace, grid, block, toolchain, dram_bytes):
    """The "model" of a result (module doc)."""
    try:
        waves = model.occupancy(program.kernel, math.prod(block), 0, toolchain.flavor)
        e = model.estimate(program, trace, grid=grid, waves_per_simd=waves, dram_bytes=dram_bytes)
    except ValueError as e:  # PerfModelError, or an occupancy the arch table cannot give
        return {"none": str(e)}
    return {"us": round(e.microseconds, 3), "peak": round(e.fraction_of_peak, 4), "bound": e.bound}


def text(result):
    """A result in words, for a line naming its row."""
    if result["result"] == "ok":
        return "ok"
    if result["result"] == "error":
        return f"the emulator cannot run it: {result['message']}"
    first = result.get("first_wrong")
    after = f" (the problem's output, fed by {result['after']})" if "after" in result else ""
    if first is None:
        return f"mismatch{after}: the sampled workgroups wrote nothing of argument {result['argument']}"
    return (
        f"mismatch{after}: {result['wrong']} of {result['of']} compared elements of argument {result['argument']} outside "
        f"their bound, largest error {number(result['largest_error'])}; the first wrong element, at "
        f"{tuple(first['index'])}, is {number(first['got'])}, expected {number(first['expected'])} within {number(first['bound'])}"
    )
