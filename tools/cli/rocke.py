"""rocke: the command line of the kernel engine.

  bazel run //tools:rocke -- toolchains            the LLVM toolchains, versions, sources, abilities
  bazel run //tools:rocke -- emit FAMILY --list    a family's cases
  bazel run //tools:rocke -- emit FAMILY --case ID [--flavor F] [--out K.hsaco]
                                                   a case's IR, or its linked code object
  bazel run //tools:rocke -- isa FAMILY --list | --case ID [--flavor F] [--json]
                                                   a case's ISA metrics: main loop, LDS banks, resources
"""

import argparse
import sys

from tools.cli import emit_cmd, isa_cmd, toolchains_cmd

# subcommand -> (module with help, add_arguments(parser), run(args) -> exit status)
COMMANDS = {
    "toolchains": toolchains_cmd,
    "emit": emit_cmd,
    "isa": isa_cmd,
}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="rocke", description="rocke, a kernel engine for AMD GPUs.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module in COMMANDS.items():
        module.add_arguments(sub.add_parser(name, help=module.HELP, description=module.__doc__))
    args = parser.parse_args(argv)
    return COMMANDS[args.command].run(args)


if __name__ == "__main__":
    sys.exit(main())
