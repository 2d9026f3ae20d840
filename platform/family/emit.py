"""Emit gate: lowers every case of a family for one flavor.

    emit --family conv.direct_fwd --flavor llvm22 --irs OUT.json --manifest OUT.txt --bless-target LABEL

Writes the IR of every case (a JSON object id -> text) and the manifest
(manifest.py), whose representatives (family.representatives) are marked
`ir=kept`. A case whose arch the flavor cannot express is recorded as an
expected rejection with its error class; any other failure fails the build.
"""

import argparse
import json
import os
import sys

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
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag in ("--family", "--flavor", "--irs", "--manifest", "--bless-target"):
        parser.add_argument(flag, required=True)
    args = parser.parse_args(argv)
    fam = families.load(args.family)
    irs, entries = emit(fam, args.flavor)
    write(args.irs, json.dumps(irs, indent=0, sort_keys=True) + "\n")
    write(args.manifest, manifest.render(entries, manifest.header(fam.name, args.flavor, args.bless_target)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
