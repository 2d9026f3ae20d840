"""rocke: the command line of the kernel engine.

  rocke build --problems catalog/resnet50.json --arch gfx942 --out resnet50
  rocke toolchains
  rocke emit conv.direct_fwd --list
  rocke emit conv.direct_fwd --case 2d_nhwc_f16_3x3_gfx942 --flavor llvm22 --out k.hsaco
  rocke isa conv.img2col --case 2d_nhwc_f16_3x3_gfx942 --json
  rocke run k.hsaco --grid 2,2 --block 256 in:a.npy in:b.npy out:c.npy:float16:128,128 i32:128 i32:128 i32:64
  rocke verify resnet50

(through Bazel: ./bazel run //tools:rocke -- build ...). `rocke COMMAND --help`
explains each command, with its examples.
"""

import rocke_families

from app.cli import build_cmd, command_line, emit_cmd, isa_cmd, run_cmd, toolchains_cmd, verify_cmd
from tools.entry import entry

# subcommand -> module (command_line.parser says what each module gives).
COMMANDS = {
    "build": build_cmd,
    "toolchains": toolchains_cmd,
    "emit": emit_cmd,
    "isa": isa_cmd,
    "run": run_cmd,
    "verify": verify_cmd,
}


def parser():
    """The command line's parser: every command, over the whole family registry."""
    return command_line.parser(__doc__, COMMANDS, rocke_families.FAMILIES)


def main(argv=None):
    """Parse `argv` (without the program name) and run the command; its exit status."""
    return command_line.runner(COMMANDS)(parser().parse_args(argv))


if __name__ == "__main__":
    entry.main(parser, command_line.runner(COMMANDS))
