"""Emits one case of a kernel family: its LLVM IR, or a linked code object.

    rocke emit conv.direct_fwd --list
    rocke emit conv.direct_fwd --case 2d_nhwc_f16_3x3_gfx942 --flavor llvm22
    rocke emit conv.direct_fwd --case 2d_nhwc_f16_3x3_gfx942 --out k.hsaco

FAMILY is a module of the family registry (library/rocke_families.py): the
module that defines FAMILY, as its rocke_family's `module` says, or that
family's name (conv_direct_fwd, gemm).
With --out NAME.hsaco the IR is verified, compiled for the case's arch and
linked by that flavor's real LLVM, and the resource figures are printed.
"""

import sys

from files.atomic import OutputError, write_atomic
from lower.flavors import FLAVORS, ArchDomainError
from lower.llvm import lower
from toolchains.llvm.llvm import LlvmError

from app.cli.inputs import Refused, default_flavor, find_case, list_cases, load_family, out_path, toolchain_for

HELP = "emit a family case as LLVM IR or a linked code object"


def add_arguments(parser):
    parser.add_argument("family", help="the family's module or name, e.g. conv.direct_fwd or gemm")
    parser.add_argument("--list", action="store_true", help="list the family's cases and stop")
    parser.add_argument("--case", help="the case id (see --list)")
    parser.add_argument(
        "--flavor",
        choices=sorted(FLAVORS),
        help="the LLVM flavor (default: the default toolchain's, see rocke toolchains)",
    )
    parser.add_argument(
        "--out", help="write here instead of stdout: NAME.ll (IR) or NAME.hsaco (code object), inside the checkout"
    )


def _fail(message):
    print(f"rocke emit: {message}", file=sys.stderr)
    return 2


def _write(out, data):
    path = out_path(out)
    try:
        write_atomic(path, data)
    except OutputError as e:
        raise Refused(str(e)) from None
    return path


def run(args):
    try:
        fam = load_family(args.families, args.family)
        if args.list:
            return list_cases(fam)
        case = find_case(fam, args.case)
        args.flavor = args.flavor or default_flavor()
    except Refused as e:
        return _fail(str(e))
    try:
        ir = lower(fam.build(case), args.flavor)
    except ArchDomainError as e:
        return _fail(str(e))
    if not args.out:
        sys.stdout.write(ir)
        return 0
    try:
        return _emit_file(args, case, ir)
    except Refused as e:
        return _fail(str(e))


def _emit_file(args, case, ir):
    if args.out.endswith(".ll"):
        print(f"rocke emit: wrote {_write(args.out, ir.encode())}", file=sys.stderr)
        return 0
    if not args.out.endswith(".hsaco"):
        return _fail(f"expected --out to end in .ll or .hsaco, got {args.out!r}")
    tc = toolchain_for(args.flavor)
    try:
        built = tc.build(ir, case.arch, case.id)
        path = _write(args.out, built.code_object)
    except LlvmError as e:
        return _fail(str(e))
    figures = ", ".join(f"{k} {v}" for k, v in built.figures.items() if v is not None)
    print(f"rocke emit: wrote {path} ({case.arch}, {tc.flavor} {tc.version}): {figures}", file=sys.stderr)
    return 0
