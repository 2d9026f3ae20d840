"""Lists every LLVM toolchain: the version its tool reports, where it came
from, and what it can do for rocke.

    rocke toolchains
    rocke toolchains --no-probe
"""

import glob
import os
import sys

from arch import flavor_facts
from toolchains.llvm.llvm import LlvmError, Toolchain

HELP = "list the LLVM toolchains with their exact versions and sources"

# What every toolchain does through toolchains/llvm/llvm.py.
_ABILITIES = "verify IR, compile to an object (cpu given to the target machine), link as ld.lld --no-undefined does, resource figures, disassemble with llvm-objdump"


def add_arguments(parser):
    parser.add_argument(
        "--no-probe", action="store_true", help="do not run the tools; print the declared versions only"
    )


def configs():
    """toolchain.json of every @llvmNN repository, in flavor order."""
    here = os.path.dirname(os.path.abspath(__file__))
    runfiles = os.environ.get("RUNFILES_DIR") or here[: here.rindex(".runfiles") + len(".runfiles")]
    paths = glob.glob(os.path.join(runfiles, "*llvm*", "toolchain.json"))
    return sorted((Toolchain.from_file(p) for p in paths), key=lambda t: flavor_facts.NAMES.index(t.flavor))


def run(args):
    toolchains = configs()
    if len(toolchains) != len(flavor_facts.NAMES):
        print(
            f"rocke: expected {len(flavor_facts.NAMES)} LLVM toolchains in the runfiles, found {len(toolchains)}",
            file=sys.stderr,
        )
        return 1
    status = 0
    for tc in toolchains:
        if args.no_probe:
            reported = "not probed"
        else:
            try:
                found = tc.reported_version()
                reported = "reported by the tool" if found == tc.version else f"BUT THE TOOL REPORTS {found}"
                status |= found != tc.version
            except LlvmError as e:
                reported, status = f"BUT THE TOOL FAILED: {e}", 1
        printed = "llc prints the same" if flavor_facts.FLAVORS[tc.flavor].reports_occupancy else "llvmlite prints none"
        occupancy = f"computed from the arch table ({printed})"
        compiles = (
            f"in this process ({tc.tools['library']})"
            if "library" in tc.tools
            else f"in a reused worker process ({tc.tools['python']})"
        )
        print(f"{tc.flavor}{' (default)' if tc.default else ''}")
        print(f"  version    {tc.version} ({reported})")
        print(f"  source     {tc.source}")
        print(f"  linker     lld {tc.tools['linker']} in this process; {tc.lld} for the words of a failed link")
        print(f"  abilities  {_ABILITIES}")
        print(f"  compiles   {compiles}")
        print(f"  occupancy  {occupancy}")
        print(f"  cpus       {', '.join(flavor_facts.FLAVORS[tc.flavor].cpus)}")
    return status
