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

import difflib
import os
import sys

import rocke_families
from family import family as families
from files.atomic import OutputError, write_atomic
from lower.flavors import FLAVORS, ArchDomainError
from lower.llvm import lower
from toolchains.llvm.llvm import LlvmError, resources
from tools.cli.toolchains_cmd import configs

HELP = "emit a family case as LLVM IR or a linked code object"


def add_arguments(parser):
    parser.add_argument("family", help="the family's module or name, e.g. conv.direct_fwd or gemm")
    parser.add_argument("--list", action="store_true", help="list the family's cases and stop")
    parser.add_argument("--case", help="the case id (see --list)")
    parser.add_argument("--flavor", default="llvm23", choices=sorted(FLAVORS))
    parser.add_argument("--out", help="write here instead of stdout: NAME.ll (IR) or NAME.hsaco (code object), inside the checkout")


def _fail(message):
    print(f"rocke emit: {message}", file=sys.stderr)
    return 2


class Refused(Exception):
    """A request the command refuses; the message is the one line it prints."""


def out_path(out):
    """Where --out really writes: relative to where `bazel run` was started,
    symlinks resolved, and inside the checkout (the only host folder the
    pinned root shares for outputs)."""
    base = os.environ.get("BUILD_WORKING_DIRECTORY", os.getcwd())
    path = os.path.realpath(os.path.join(base, out))
    checkout = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if checkout:
        checkout = os.path.realpath(checkout)
        if not path.startswith(checkout + os.sep):
            raise Refused(
                f"cannot write {path}: ./bazel runs in the pinned root, whose outputs reach the host only inside the checkout {checkout}; give an --out path inside it"
            )
    return path


def _write(out, data):
    path = out_path(out)
    try:
        write_atomic(path, data)
    except OutputError as e:
        raise Refused(str(e)) from None
    return path


def load_family(name):
    """The Family of registry module `name` (conv.direct_fwd) or of the
    registered family called `name` (conv_direct_fwd); Refused names what the
    registry offers."""
    if name in rocke_families.FAMILIES:
        return families.load(name)
    # A family's own name (Family.name) works too: load each to learn it.
    by_name = {families.load(module).name: module for module in rocke_families.FAMILIES}
    if name in by_name:
        return families.load(by_name[name])
    offered = ", ".join(rocke_families.FAMILIES) or "none (this build's registry is empty)"
    close = difflib.get_close_matches(name, [*rocke_families.FAMILIES, *by_name], n=1)
    hint = f" Did you mean {close[0]}?" if close else ""
    raise Refused(f"expected a family of the registry, got {name!r}; the registry offers: {offered}.{hint}")


def toolchain_for(flavor):
    """The Toolchain of `flavor` this program was given; Refused names the ones it has."""
    found = [t for t in configs() if t.flavor == flavor]
    if not found:
        have = ", ".join(sorted(t.flavor for t in configs())) or "none"
        raise Refused(f"expected the {flavor} toolchain among this program's, got only: {have}; run it through ./bazel run //tools:rocke, which gives it all four")
    return found[0]


def list_cases(fam):
    """Print every case of `fam` with its arch (what --list does); exit status 0."""
    for c in fam.cases:
        print(f"{c.id}  {c.arch}")
    return 0


def find_case(fam, case_id):
    """The case `case_id` of `fam`; Refused suggests close ids."""
    cases = {c.id: c for c in fam.cases}
    if case_id not in cases:
        close = difflib.get_close_matches(str(case_id), cases, n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else " See --list."
        raise Refused(f"expected a case of {fam.name}, got {case_id!r}.{hint}")
    return cases[case_id]


def run(args):
    try:
        fam = load_family(args.family)
        if args.list:
            return list_cases(fam)
        case = find_case(fam, args.case)
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
        compiled = tc.compile(ir, case.arch)
        if compiled.has_indirect_call:
            return _fail(f"{args.flavor} compiled an unknown intrinsic into an indirect call for {case.id}")
        path = _write(args.out, tc.link(compiled.obj))
    except LlvmError as e:
        return _fail(str(e))
    figures = ", ".join(f"{k} {v}" for k, v in resources(compiled).items() if v is not None)
    print(f"rocke emit: wrote {path} ({case.arch}, {tc.flavor} {tc.version}): {figures}", file=sys.stderr)
    return 0
