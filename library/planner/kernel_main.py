"""One rocke_catalog action: one problem on one arch -> its code object and index row.

    kernel_main --entry '{"op": "conv_fwd", ...}' --index 3 --arch gfx942 \
        --toolchain external/llvm23/toolchain.json --code-object K.hsaco --row K.row.json

The entry is the problem itself (not the file it comes from), so that editing
one problem of a set reruns only its own actions.

An entry that is bad, or that no family builds on this arch, is a refusal,
not a failed action: the row file then holds {"refused": {"problem", "arch",
"field", "message"}, "name": its name, or null when the entry itself is bad},
the code object is empty, and the message goes to stderr; the archive lists
the refusal under index.json's "errors", as `rocke build` does. Exit status
1 only when an output cannot be written or LLVM fails on the chosen kernel.
"""

import argparse
import json
import sys

from catalog.kernel import KernelError
from files.atomic import OutputError, write_atomic
from planner import jobs
from planner.problems import EntryError, entry
from toolchains.llvm.llvm import Toolchain


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entry", required=True, help="the problem, as JSON")
    parser.add_argument("--index", type=int, required=True, help="its index in the problems file")
    parser.add_argument("--arch", required=True)
    parser.add_argument("--toolchain", required=True, help="the flavor's toolchain.json")
    parser.add_argument("--code-object", required=True)
    parser.add_argument("--row", required=True)
    args = parser.parse_args(argv)
    try:
        row, code_object = _kernel(args)
        write_atomic(args.code_object, code_object)
        write_atomic(args.row, (json.dumps(row, sort_keys=True) + "\n").encode())
    except (KernelError, OutputError) as e:
        print(f"rocke catalog: {e}", file=sys.stderr)
        return 1
    return 0


def _kernel(args):
    """(row, code object) of the action's entry on its arch; for a refusal,
    (its record, b"")."""
    problem = None
    try:
        problem = entry(args.index, json.loads(args.entry))
        return jobs.build(jobs.Job.of(problem, args.arch), Toolchain.from_file(args.toolchain))
    except EntryError as e:
        print(f"rocke catalog: refused, recorded in the catalog's errors: {e}", file=sys.stderr)
        refused = {"problem": e.index, "arch": e.arch, "field": e.field, "message": e.message}
        return {"refused": refused, "name": problem and problem.name}, b""


if __name__ == "__main__":
    sys.exit(main())
