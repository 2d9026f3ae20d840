"""The rocke command line's frame, free of any family: a parser with a
subparser per command, and the family registry the commands look families
up in (args.families). The rocke program (rocke.py) gives it every command
and the whole registry; a test gives it the commands and the families it
exercises, so that an edit to another family does not re-run it."""

from tools.entry import entry


def parser(description, commands, families):
    """The parser of `commands` (subcommand -> module with HELP, a docstring
    (its --help, examples first), add_arguments(parser) and run(args) -> exit
    status); the parsed args carry `families` (module -> Family) as
    args.families."""
    top = entry.parser(prog="rocke", description=description)
    top.set_defaults(families=families)
    sub = top.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module in commands.items():
        module.add_arguments(entry.subparser(sub, name, help=module.HELP, description=module.__doc__))
    return top


def runner(commands):
    """run(args) for a parser of `commands`: the chosen command's exit status."""
    return lambda args: commands[args.command].run(args)


def main(argv, commands, families, description=None):
    """Parse `argv` (without the program name) with parser(...) and run the command; its exit status."""
    return runner(commands)(parser(description, commands, families).parse_args(argv))


def registry(*modules):
    """A family registry of family `modules` (each defining FAMILY), keyed by
    module name as the generated rocke_families.FAMILIES is."""
    return {module.__name__: module.FAMILY for module in modules}
