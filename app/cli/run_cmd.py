"""Runs any AMDGPU code object in the emulator (platform/emu).

    rocke run k.hsaco --kernel gemm_f16_gfx942 --grid 2,2 --block 256 \\
        in:a.npy in:b.npy out:c.npy:float16:128,128 i32:128 i32:128 i32:64
    rocke run k.hsaco --grid 4 --block 64 inout:x.npy f32:0.5 null --workgroups "0;3"

Each ARG is, in the order of the kernel's explicit arguments (its metadata):
  in:PATH.npy                 a global buffer read from PATH
  out:PATH.npy:DTYPE:SHAPE    a zero-filled buffer of DTYPE (a numpy name) and
                              SHAPE (a,b,...), written to PATH when the run ends
  inout:PATH.npy              a buffer read from PATH and written back to it
  i32:N  i64:N  f32:X         a value of that type
  null                        a null pointer
Hidden arguments are filled as the HIP runtime fills them. --grid counts
workgroups, --block threads per workgroup (X[,Y,Z] each). --lds BYTES adds
dynamic LDS; --workgroups "X,Y,Z;X,Y,Z" runs only those workgroups.

The code object may come from any compiler; it is disassembled by the
llvm-objdump of --flavor (default: the default toolchain's). It prints the
instructions executed by class and the time taken, and the performance
model's time for the whole grid (platform/emu/model.py: a MODEL from the
run's trace, the occupancy and perf_model.json's sourced figures, not a
hardware time; its DRAM bytes are the buffers', each read or written once). Bad input (an argument
count or type the metadata disagrees with, an unknown kernel, a file that is
not a code object, an arch the emulator does not run, a global access
outside every buffer) is one line and exit status 2.
"""

import math
import os
import sys

import numpy as np

from app.cli.inputs import Refused, default_flavor, out_path, toolchain_for
from emu import emu, model
from lower.flavors import FLAVORS

HELP = "run a code object in the emulator (ours or another compiler's) and report what it executed"

# ARG kind -> (metadata value kind, bytes or None for any)
_KINDS = {
    "in": ("global_buffer", 8),
    "out": ("global_buffer", 8),
    "inout": ("global_buffer", 8),
    "null": ("global_buffer", 8),
    "i32": ("by_value", 4),
    "i64": ("by_value", 8),
    "f32": ("by_value", 4),
}


def add_arguments(parser):
    parser.add_argument("file", help="the code object (.hsaco)")
    parser.add_argument("--kernel", help="the kernel's name (default: the only one)")
    parser.add_argument("--grid", required=True, help="workgroups, X[,Y,Z]")
    parser.add_argument("--block", required=True, help="threads per workgroup, X[,Y,Z]")
    parser.add_argument("--lds", type=int, default=0, help="dynamic LDS bytes")
    parser.add_argument("--workgroups", help='run only these workgroups: "X,Y,Z;X,Y,Z"')
    parser.add_argument(
        "--flavor", choices=sorted(FLAVORS), help="whose llvm-objdump decodes it (default: the default toolchain's)"
    )
    parser.add_argument(
        "args",
        nargs="*",
        metavar="ARG",
        help="in:PATH.npy, out:PATH.npy:DTYPE:SHAPE, inout:PATH.npy, i32:N, i64:N, f32:X or null",
    )


def _fail(message):
    print(f"rocke run: {message}", file=sys.stderr)
    return 2


def _triple(text, what, least=1):
    """X[,Y,Z] of integers of at least `least`."""
    try:
        values = tuple(int(v) for v in text.split(","))
    except ValueError:
        values = ()
    if not 1 <= len(values) <= 3 or min(values) < least:
        kind = "positive" if least else "non-negative"
        raise Refused(f"{what}: expected X[,Y,Z] of {kind} integers, got {text!r}")
    return values


def _input(path):
    base = os.environ.get("BUILD_WORKING_DIRECTORY", os.getcwd())
    full = os.path.join(base, path)
    try:
        return np.ascontiguousarray(np.load(full, allow_pickle=False))
    except (OSError, ValueError) as e:
        raise Refused(f"cannot read {full} as a .npy array: {e}") from None


def _parse_arg(i, text, meta):
    """(value, (out path, array) or None) of ARG number i for metadata arg `meta`."""
    kind, _, rest = text.partition(":")
    if kind not in _KINDS:
        raise Refused(f"argument {i} ({text!r}): expected in:, out:, inout:, i32:, i64:, f32: or null")
    value_kind, size = _KINDS[kind]
    if meta.kind != value_kind or meta.size != size:
        raise Refused(
            f"argument {i} ({text!r}): the kernel's argument {meta.name} is {meta.kind} of {meta.size} bytes, not "
            f"{value_kind} of {size}"
        )
    try:
        if kind == "null":
            return None, None
        if kind in ("i32", "i64"):
            return emu.Scalar(int(rest, 0), np.int32 if kind == "i32" else np.int64), None
        if kind == "f32":
            return emu.Scalar(float(rest), np.float32), None
        if kind == "in":
            return _input(rest), None
        if kind == "inout":
            array = _input(rest)
            return array, (out_path(rest), array)
        path, dtype, shape = rest.rsplit(":", 2)
        array = np.zeros(tuple(int(s) for s in shape.split(",")), np.dtype(dtype))
        return array, (out_path(path), array)
    except (ValueError, TypeError, OverflowError) as e:
        raise Refused(f"argument {i} ({text!r}): {e}") from None


def run(args):
    try:
        return _run(args)
    except Refused as e:
        return _fail(str(e))
    except emu.EmuError as e:
        return _fail(f"{type(e).__name__}: {e}")


def _run(args):
    try:
        with open(os.path.join(os.environ.get("BUILD_WORKING_DIRECTORY", os.getcwd()), args.file), "rb") as f:
            data = f.read()
    except OSError as e:
        raise Refused(f"cannot read {args.file}: {e.strerror}") from None
    co = emu.CodeObject(data)
    kernel = co.kernel(args.kernel)
    emu.check_arch(co.arch)
    explicit = kernel.explicit_args
    if len(args.args) != len(explicit):
        names = ", ".join(f"{a.name} ({a.kind}, {a.size} B)" for a in explicit)
        raise Refused(f"kernel {kernel.name} takes {len(explicit)} arguments ({names}), got {len(args.args)}")
    values, outputs = [], []
    for i, (text, meta) in enumerate(zip(args.args, explicit)):
        value, out = _parse_arg(i, text, meta)
        values.append(value)
        if out:
            outputs.append(out)
    grid, block = _triple(args.grid, "--grid"), _triple(args.block, "--block")
    chosen = [_triple(g, "--workgroups", 0) for g in args.workgroups.split(";")] if args.workgroups else None
    flavor = args.flavor or default_flavor()
    program = emu.program(co, kernel.name, toolchain_for(flavor))
    result = emu.launch(
        program, grid=grid, block=block, args=values, dynamic_lds=args.lds, workgroups=chosen, trace=True
    )
    for path, array in outputs:
        np.save(path, array)
    print(report(kernel, co.arch, result))
    print(_model_line(program, result, grid, block, args, values, flavor))
    return 0


def _dram_bytes(texts, values):
    """Bytes the buffers move to and from DRAM, each read once (in, inout) and written once (out, inout)."""
    times = {"in": 1, "out": 1, "inout": 2}
    return sum(v.nbytes * times.get(t.partition(":")[0], 0) for t, v in zip(texts, values) if isinstance(v, np.ndarray))


def _model_line(program, result, grid, block, args, values, flavor):
    try:
        waves = model.occupancy(program.kernel, math.prod(block), args.lds, flavor)
        e = model.estimate(
            program, result.trace, grid=grid, waves_per_simd=waves, dram_bytes=_dram_bytes(args.args, values)
        )
    except ValueError as e:  # PerfModelError, or an occupancy the arch table cannot give
        return f"  model    none: {e}"
    return (
        f"  model    {e.microseconds:.1f} us for the whole grid, {100 * e.fraction_of_peak:.1f}% of peak, "
        f"{e.bound}-bound ({waves} waves per SIMD, {e.resident} workgroups per CU at once; a MODEL from "
        "platform/arch/perf_model.json, not a hardware time)"
    )


def report(kernel, arch, result):
    """What the run executed, as text."""
    lines = [
        f"{kernel.name} ({arch}, wave{kernel.wave_size}): {len(result.workgroups)} workgroups, {result.waves} waves, "
        f"{result.seconds:.3f} s"
    ]
    lines.append(
        f"  {result.instructions} instructions executed, {result.instructions / max(result.waves, 1):.1f} per wave"
    )
    for name, count in sorted(result.classes.items(), key=lambda kv: -kv[1]):
        if count:
            lines.append(f"  {name:<8} {count:>10}  {count / max(result.waves, 1):>10.1f} per wave")
    waited = sum(n for n, _ in result.waits.values())
    lines.append(
        f"  waits    {waited} executed, {sum(t for _, t in result.waits.values())} memory operations retired by them"
    )
    f = result.figures
    lines.append(
        f"  LDS      {f['lds_executions']} wave accesses, {f['lds_cycles']} bank cycles "
        f"against {f['lds_ideal']} ideal, "
        f"worst {f['lds_worst_ways']}-way" + (f" (at 0x{f['lds_worst_at']:x})" if f["lds_worst_at"] is not None else "")
    )
    lines.append(
        f"  memory   {f['memory_executions']} wave accesses of global memory, {f['memory_bytes']} bytes, "
        f"{f['segments_64']} 64-byte and {f['segments_128']} 128-byte segments touched"
    )
    if result.lds_out_of_range:
        lines.append(f"  LDS accesses outside the allocation (read 0, write dropped): {result.lds_out_of_range} lanes")
    return "\n".join(lines)
