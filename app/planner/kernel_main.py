"""One rocke_catalog action: one problem on one arch -> its code objects and index rows.

    kernel_main --entry '{"op": "conv_fwd", ...}' --index 3 --arch gfx942 \
        --toolchain external/llvm23/toolchain.json --out K

K (a folder, the action's one output) then holds rows.json (the problem's
index rows, a JSON list in the order its kernels run) and each row's code
object at its path (ARCH/NAME.hsaco, and ARCH/NAME.reduce.hsaco when the
planner splits the problem): how many kernels a problem needs is the
planner's choice, which Bazel cannot know before running it.

The entry is the problem itself (not the file it comes from), so that editing
one problem of a set reruns only its own actions.

An entry that is bad, or that no family builds on this arch, is a refusal,
not a failed action: rows.json then holds one record, {"refused":
{"problem", "arch", "field", "message"}, "name": its name, or null when the
entry itself is bad}, and no code object; the message goes to stderr, and
the archive lists the refusal under index.json's "errors", as `rocke build`
does. Exit status 1 only when the arch is not in the arch table, the
flavor cannot express the chosen kernel for it (ArchDomainError, named on
the line), the planner chooses a family this program's registry lacks
(a rocke_catalog's families), an output cannot be written or LLVM fails on
the kernel.
"""

import argparse
import json
import os
import sys

import rocke_families
from arch import arch as arch_table
from catalog.kernel import KernelError
from files.atomic import OutputError, write_atomic
from lower.flavors import ArchDomainError
from planner import jobs
from planner.problems import EntryError, entry
from toolchains.llvm.llvm import Toolchain


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entry", required=True, help="the problem, as JSON")
    parser.add_argument("--index", type=int, required=True, help="its index in the problems file")
    parser.add_argument("--arch", required=True)
    parser.add_argument("--toolchain", required=True, help="the flavor's toolchain.json")
    parser.add_argument("--out", required=True, help="the folder for rows.json and the code objects")
    args = parser.parse_args(argv)
    try:
        arch_table.get(args.arch)  # the action's own arch first: an unknown one fails it, whatever the entry
        kernels = _kernels(args)
        for row, code_object in kernels:
            if code_object is None:
                continue
            path = os.path.join(args.out, row["path"])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            write_atomic(path, code_object)
        write_atomic(
            os.path.join(args.out, jobs.ROWS), (json.dumps([row for row, _ in kernels], sort_keys=True) + "\n").encode()
        )
    except (KernelError, OutputError, arch_table.UnknownArchError) as e:
        print(f"rocke catalog: {e}", file=sys.stderr)
        return 1
    except jobs.RegistryError as e:  # the rocke_catalog's families lack the planner's choice
        print(f"rocke catalog: {e}: add its rocke_family to the rocke_catalog's families", file=sys.stderr)
        return 1
    except ArchDomainError as e:  # the flavor cannot express the kernel: the line says so, not that LLVM failed
        print(f"rocke catalog: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


def _kernels(args):
    """[(row, code object)] of the action's entry on its arch; for a
    refusal, [(its record, None)]."""
    problem = None
    try:
        problem = entry(args.index, json.loads(args.entry))
        return jobs.build(jobs.Job.of(problem, args.arch), Toolchain.from_file(args.toolchain), rocke_families.FAMILIES)
    except EntryError as e:
        print(f"rocke catalog: refused, recorded in the catalog's errors: {e}", file=sys.stderr)
        refused = {"problem": e.index, "arch": e.arch, "field": e.field, "message": e.message}
        return [({"refused": refused, "name": problem and problem.name}, None)]


if __name__ == "__main__":
    sys.exit(main())
