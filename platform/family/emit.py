"""Emit gate: builds every case of a family's case list once and lowers it for each flavor asked.

    emit --family conv.direct_fwd --cases conv_direct_fwd.cases.json \\
         --flavor llvm22 --irs OUT.irs.json --rk OUT.rk.json --manifest OUT.manifest --bless-target LABEL \\
         [--flavor llvm23 --irs ... --rk ... --manifest ... --bless-target ...]...
    emit --family conv.direct_fwd --cases-json OUT.cases.json
    emit --family conv.direct_fwd --checks OUT.checks.json

Builds the cases of the list written by NAME_cases (cases_json.py; each spec
read back with its class's from_json), the list the C++ emitter rocke-emit
builds from too, and writes, per flavor (the n-th --flavor with the n-th
--irs, --rk, --manifest and --bless-target), three files, byte for byte what
rocke-emit writes for that flavor: the LLVM IR of every lowered case and the .rk text of every built
kernel (JSON objects id -> text, canonical), and the manifest (manifest.py),
whose representatives (family.representatives) are marked `ir=kept`. A case
the family refuses (family.Refusal, raised by its build) or whose arch the
flavor cannot express is recorded as an expected rejection with its error
class; any other failure stops with one line naming the case.

With --cases-json it writes only the family's case list, as canonical JSON;
with --checks only its numeric checks as data (checks.py), which the machine
gates read instead of importing the family.
"""

import argparse
import sys

from family import cases_json, checks
from family import family as families
from family import manifest
from files.atomic import OutputError, write_atomic
from ir.printer import print_kernel
from lower.flavors import FLAVORS, ArchDomainError
from lower.llvm import lower_each


class EmitError(Exception):
    """A case that failed to build or lower; the message names it."""


def emit(fam, cases, flavor):
    """({id: LLVM IR}, {id: .rk text}, [manifest.Entry]) of `cases`, in their order."""
    return emit_flavors(fam, cases, [flavor])[flavor]


def emit_flavors(fam, cases, flavors):
    """{flavor: emit(fam, cases, flavor)} for each of `flavors`, each case built,
    printed and lowered for all of them at once: building is most of a
    one-flavor emit, its kernel and .rk text are the same for every flavor, and
    the kernel is the one the family's builder verified in finish() (lowering
    does not verify it again: lower_each's verified, as rocke-emit's
    lower_verified)."""
    built, rks = [], {}  # built: (case, kernel name, refusal's error class, {flavor: IR or ArchDomainError})
    for case in cases:
        try:
            kernel = fam.build(case)
        except families.Refusal as e:
            built.append((case, None, type(e).__name__, None))
            continue
        except Exception as e:  # noqa: BLE001 - any builder bug, named with its case
            raise EmitError(f"family {fam.name}, case {case.id}: {type(e).__name__}: {e}") from e
        rks[case.id] = print_kernel(kernel)
        try:
            lowered = lower_each(kernel, flavors, verified=True)
        except Exception as e:  # noqa: BLE001 - any lowering bug, named with its case
            raise EmitError(f"family {fam.name}, case {case.id}: {type(e).__name__}: {e}") from e
        built.append((case, kernel.name, None, lowered))
    out = {}
    for flavor in flavors:
        irs, entries = _lowered(built, flavor)
        out[flavor] = irs, rks, entries
    return out


def _lowered(built, flavor):
    """({id: LLVM IR}, [manifest.Entry]) of `built` (emit_flavors') for
    `flavor`, in the cases' order."""
    irs, entries, emitted = {}, [], []
    for case, kernel_name, refusal, lowered in built:
        if refusal:
            entries.append(manifest.Entry(case.id, case.arch, error=refusal))
            continue
        if isinstance(lowered[flavor], ArchDomainError):
            entries.append(manifest.Entry(case.id, case.arch, error=type(lowered[flavor]).__name__))
            continue
        irs[case.id] = lowered[flavor]
        emitted.append((case, kernel_name))
    kept = set(families.representatives([case for case, _ in emitted]))
    for case, kernel_name in emitted:
        entries.append(manifest.entry_for(case.id, case.arch, kernel_name, irs[case.id], kept=case.id in kept))
    return irs, entries


def text_map(texts):
    """An id -> text map's file: canonical JSON, as rocke-emit writes it."""
    return cases_json.canonical(texts, "texts") + "\n"


def write(path, text):
    write_atomic(path, text.encode())


_EMIT_FLAGS = ("--flavor", "--cases", "--irs", "--rk", "--manifest", "--bless-target")
_PER_FLAVOR = tuple(f for f in _EMIT_FLAGS if f != "--cases")  # given once per flavor, in the same order
_ONLY_FLAGS = {"--cases-json": "the case list", "--checks": "the numeric checks"}  # flag -> the one file it writes


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--family", required=True, help="the module defining FAMILY, e.g. conv.direct_fwd")
    parser.add_argument("--cases-json", help="write only the case list, to this path")
    parser.add_argument("--checks", help="write only the numeric checks (checks.py), to this path")
    for flag in _EMIT_FLAGS:
        parser.add_argument(flag, action="append" if flag in _PER_FLAVOR else "store")
    args = parser.parse_args(argv)
    given = [flag for flag in _EMIT_FLAGS if getattr(args, flag[2:].replace("-", "_")) is not None]
    only = [flag for flag in _ONLY_FLAGS if getattr(args, flag[2:].replace("-", "_")) is not None]
    if len(only) > 1:
        parser.error(f"expected one of {' and '.join(only)}, got both; each writes one file, in its own run")
    if only and given:
        parser.error(
            f"{only[0]} writes only {_ONLY_FLAGS[only[0]]}: expected none of {', '.join(_EMIT_FLAGS)} with it, got {', '.join(given)}"
        )
    if not only and len(given) != len(_EMIT_FLAGS):
        parser.error(
            f"expected either {' or '.join(_ONLY_FLAGS)}, or all of {', '.join(_EMIT_FLAGS)} (missing {', '.join(f for f in _EMIT_FLAGS if f not in given)})"
        )
    if not only:
        counts = {flag: len(getattr(args, flag[2:].replace("-", "_"))) for flag in _PER_FLAVOR}
        if len(set(counts.values())) != 1:
            parser.error(
                f"expected {', '.join(_PER_FLAVOR)} once per flavor, got {', '.join(f'{n} {f}' for f, n in counts.items())}"
            )
        twice = sorted({f for f in args.flavor if args.flavor.count(f) > 1})
        if twice:
            parser.error(f"expected each flavor once, got {', '.join(twice)} more than once")
        unknown = [f for f in args.flavor if f not in FLAVORS]
        if unknown:
            parser.error(f"--flavor: expected one of {', '.join(FLAVORS)}, got {unknown[0]}")
    return args


def _read_list(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise families.FamilyError(
            f"cannot read the case list {path}: {e.strerror}; pass the family's NAME.cases.json", "--cases", path
        ) from None
    except UnicodeDecodeError as e:
        raise families.FamilyError(
            f"cannot read the case list {path}: not UTF-8 text ({e.reason} at byte {e.start}); pass the family's NAME.cases.json",
            "--cases",
            path,
        ) from None


def main(argv=None):
    args = _parse(argv)
    fam = families.load(args.family)
    try:
        if args.cases_json is not None:
            write(args.cases_json, cases_json.render(fam))
            return 0
        if args.checks is not None:
            write_atomic(args.checks, checks.render(fam))
            return 0
        cases = cases_json.read(_read_list(args.cases), fam)
        emitted = emit_flavors(fam, cases, args.flavor)
        for flavor, irs_path, rk_path, manifest_path, bless_target in zip(
            args.flavor, args.irs, args.rk, args.manifest, args.bless_target, strict=True
        ):
            irs, rks, entries = emitted[flavor]
            write(irs_path, text_map(irs))
            write(rk_path, text_map(rks))
            write(manifest_path, manifest.render(entries, manifest.header(fam.name, flavor, bless_target)))
    except (families.FamilyError, checks.ChecksError, EmitError, OutputError) as e:
        print(f"emit: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
