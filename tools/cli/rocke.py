"""rocke: the command line of the kernel engine.

  rocke build --problems catalog/resnet50.json --arch gfx942 --out resnet50
  rocke toolchains
  rocke emit conv.direct_fwd --list
  rocke emit conv.direct_fwd --case 2d_nhwc_f16_3x3_gfx942 --flavor llvm22 --out k.hsaco
  rocke isa conv.img2col --case 2d_nhwc_f16_3x3_gfx942 --json

(through Bazel: ./bazel run //tools:rocke -- build ...). `rocke COMMAND --help`
explains each command, with its examples.
"""

import argparse

from absl import app, flags
from absl.flags import argparse_flags

from tools.cli import build_cmd, emit_cmd, isa_cmd, toolchains_cmd

# subcommand -> module with HELP, a docstring (its --help, examples first),
# add_arguments(parser) and run(args) -> exit status.
COMMANDS = {
    "build": build_cmd,
    "toolchains": toolchains_cmd,
    "emit": emit_cmd,
    "isa": isa_cmd,
}


def parser():
    """The command line's parser: absl's argparse-compatible one, with a
    subparser per command; help texts keep their line breaks (one example
    per line). absl's own flags (logging) are not offered: rocke logs nothing."""
    top = argparse_flags.ArgumentParser(
        prog="rocke", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter, inherited_absl_flags=None
    )
    sub = top.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module in COMMANDS.items():
        p = sub.add_parser(name, help=module.HELP, description=module.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter, inherited_absl_flags=None)
        module.add_arguments(p)
    return top


def parse(argv):
    """absl.app's flags_parser: argv (program name first) -> parsed args."""
    args = parser().parse_args(argv[1:])
    flags.FLAGS.mark_as_parsed()  # app.run insists; no absl flag is defined here
    return args


def run(args):
    return COMMANDS[args.command].run(args)


def main(argv=None):
    """Parse `argv` (without the program name) and run the command; its exit status."""
    return run(parser().parse_args(argv))


if __name__ == "__main__":
    app.run(run, flags_parser=parse)
