"""Emit gate: lowers every case of a family for one flavor.

    emit --family conv.direct_fwd --flavor llvm22 --irs OUT.json --manifest OUT.txt --bless-target LABEL
    emit --family conv.direct_fwd --cases-json OUT.cases.json

Writes the IR of every case (a JSON object id -> text) and the manifest
(manifest.py), whose representatives (family.representatives) are marked
`ir=kept`. A case whose arch the flavor cannot express is recorded as an
expected rejection with its error class; any other failure fails the build.

With --cases-json it writes only the family's case list, as canonical JSON
(cases_json.py), the list both engines build from.
"""

import argparse
import os
import sys

from family import cases_json
from family import family as families
from family import manifest
from lower.flavors import ArchDomainError
from lower.llvm import lower


def emit(fam, flavor):
    irs, entries, emitted = {}, [], []
    for case in fam.cases:
        kernel = fam.build(case)
        try:
            irs[case.id] = lower(kernel, flavor)
        except ArchDomainError as e:
            entries.append(manifest.Entry(case.id, case.arch, error=type(e).__name__))
            continue
        emitted.append((case, kernel.name))
    kept = set(families.representatives([case for case, _ in emitted]))
    for case, kernel_name in emitted:
        entries.append(manifest.entry_for(case.id, case.arch, kernel_name, irs[case.id], kept=case.id in kept))
    return irs, entries


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


_EMIT_FLAGS = ("--flavor", "--irs", "--manifest", "--bless-target")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--family", required=True)
    parser.add_argument("--cases-json", help="write only the case list, to this path")
    for flag in _EMIT_FLAGS:
        parser.add_argument(flag)
    args = parser.parse_args(argv)
    given = [flag for flag in _EMIT_FLAGS if getattr(args, flag[2:].replace("-", "_")) is not None]
    if args.cases_json is not None and given:
        parser.error(f"--cases-json writes only the case list: expected none of {', '.join(_EMIT_FLAGS)} with it, got {', '.join(given)}")
    if args.cases_json is None and len(given) != len(_EMIT_FLAGS):
        parser.error(f"expected either --cases-json, or all of {', '.join(_EMIT_FLAGS)} (missing {', '.join(f for f in _EMIT_FLAGS if f not in given)})")
    fam = families.load(args.family)
    if args.cases_json is not None:
        write(args.cases_json, cases_json.render(fam))
        return 0
    irs, entries = emit(fam, args.flavor)
    # Canonical JSON, like the case list: a C++ emitter must match it byte for byte.
    write(args.irs, cases_json.canonical(irs, "irs") + "\n")
    write(args.manifest, manifest.render(entries, manifest.header(fam.name, args.flavor, args.bless_target)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
