"""Emits one case of a kernel family: its LLVM IR, or a linked code object.

    rocke emit conv.direct_fwd --list
    rocke emit conv.direct_fwd --case 2d_nhwc_f16_3x3_gfx942 --flavor llvm22
    rocke emit conv.direct_fwd --case 2d_nhwc_f16_3x3_gfx942 --out k.hsaco

FAMILY is the module that defines FAMILY (the `module` of its rocke_family).
With --out NAME.hsaco the IR is verified, compiled for the case's arch and
linked by that flavor's real LLVM, and the resource figures are printed.
"""

import difflib
import os
import sys

from family import family as families
from lower.flavors import FLAVORS, ArchDomainError
from lower.llvm import lower
from toolchains.llvm.llvm import LlvmError, resources
from tools.cli.toolchains_cmd import configs

HELP = "emit a family case as LLVM IR or a linked code object"


def add_arguments(parser):
    parser.add_argument("family", help="the family's module, e.g. conv.direct_fwd")
    parser.add_argument("--list", action="store_true", help="list the family's cases and stop")
    parser.add_argument("--case", help="the case id (see --list)")
    parser.add_argument("--flavor", default="llvm23", choices=sorted(FLAVORS))
    parser.add_argument("--out", help="write here instead of stdout: NAME.ll (IR) or NAME.hsaco (code object)")


def _fail(message):
    print(f"rocke emit: {message}", file=sys.stderr)
    return 2


# What the pinned root shares with the host (toolchains/sysroot/root.sh).
SHARED = ("/var/cache/rocke",)


class _Refused(Exception):
    pass


def _write(path, data):
    path = os.path.abspath(os.path.join(os.environ.get("BUILD_WORKING_DIRECTORY", ""), path))
    shared = SHARED + tuple(filter(None, [os.environ.get("BUILD_WORKSPACE_DIRECTORY")]))
    if not any(path.startswith(root + os.sep) for root in shared):
        raise _Refused(f"cannot write {path}: ./bazel runs in the pinned root, which shares only {', '.join(shared)} with the host. Write inside the checkout.")
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return path


def run(args):
    try:
        fam = families.load(args.family)
    except (ImportError, ValueError) as e:
        return _fail(f"cannot load family module {args.family!r}: {e}")
    cases = {c.id: c for c in fam.cases}
    if args.list:
        for c in fam.cases:
            print(f"{c.id}  {c.arch}")
        return 0
    if args.case not in cases:
        close = difflib.get_close_matches(str(args.case), cases, n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else " See --list."
        return _fail(f"expected a case of {fam.name}, got {args.case!r}.{hint}")
    case = cases[args.case]
    try:
        ir = lower(fam.build(case), args.flavor)
    except ArchDomainError as e:
        return _fail(str(e))
    if not args.out:
        sys.stdout.write(ir)
        return 0
    try:
        return _emit_file(args, case, ir)
    except _Refused as e:
        return _fail(str(e))


def _emit_file(args, case, ir):
    if args.out.endswith(".ll"):
        print(f"rocke emit: wrote {_write(args.out, ir.encode())}", file=sys.stderr)
        return 0
    if not args.out.endswith(".hsaco"):
        return _fail(f"expected --out to end in .ll or .hsaco, got {args.out!r}")
    tc = next(t for t in configs() if t.flavor == args.flavor)
    try:
        tc.verify(ir)
        compiled = tc.compile(ir, case.arch)
        if compiled.has_indirect_call:
            return _fail(f"{args.flavor} compiled an unknown intrinsic into an indirect call for {case.id}")
        path = _write(args.out, tc.link(compiled.obj))
    except LlvmError as e:
        return _fail(str(e))
    figures = ", ".join(f"{k} {v}" for k, v in resources(compiled.asm).items() if v is not None)
    print(f"rocke emit: wrote {path} ({case.arch}, {tc.flavor} {tc.version}): {figures}", file=sys.stderr)
    return 0
