"""NAME_objects_F's program: every emitted case of a family built by one
flavor's real LLVM, written as objects.py describes.

    build_objects --irs NAME.F.irs.json --manifest NAME.F.manifest \\
                  --toolchain external/llvmNN/toolchain.json --out NAME.F.objects.json

One Bazel action per family and flavor, so the validity gate (which judges
what LLVM said, and the figures) and the machine gate (which runs the code
objects) share one build, and a change to either gate's program leaves the
build cached. The action fails only on bad arguments or unreadable inputs.
"""

import argparse
import json
import sys

from family import manifest, objects
from files.atomic import OutputError, write_atomic
from toolchains.llvm.llvm import Toolchain


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--irs", required=True, help="NAME.F.irs.json from the emit genrule")
    parser.add_argument("--manifest", required=True, help="NAME.F.manifest from the emit genrule")
    parser.add_argument("--toolchain", required=True, help="the flavor's toolchain.json")
    parser.add_argument("--out", required=True, help="the objects file to write")
    args = parser.parse_args(argv)
    tc = Toolchain.from_file(args.toolchain)
    with open(args.irs) as f:
        irs = json.load(f)
    entries = manifest.read(args.manifest, manifest.EMITTED_FIX)
    unlisted = sorted(set(irs) - set(entries))
    if unlisted:
        print(
            f"build_objects: {args.irs} has cases {args.manifest} does not list: {', '.join(unlisted)}", file=sys.stderr
        )
        return 2
    try:
        write_atomic(args.out, objects.render(tc.flavor, objects.build(irs, entries, tc)))
    except OutputError as e:
        print(f"build_objects: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
