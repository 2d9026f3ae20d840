"""How every rocke tool starts: absl's app entry point with absl's
argparse-compatible flags parser, and help texts that keep their line breaks
(one example per line)."""

import argparse

from absl import app, flags
from absl.flags import argparse_flags


def parser(**kwargs):
    """An argparse_flags.ArgumentParser (subparsers made from it are too)
    whose description and epilog print as written. absl's own flags
    (logging) are not offered: the tools log nothing."""
    return argparse_flags.ArgumentParser(
        formatter_class=argparse.RawDescriptionHelpFormatter, inherited_absl_flags=None, **kwargs
    )


def subparser(subparsers, name, **kwargs):
    """A subcommand's parser, formatted like parser()'s."""
    return subparsers.add_parser(
        name, formatter_class=argparse.RawDescriptionHelpFormatter, inherited_absl_flags=None, **kwargs
    )


def main(make_parser, run):
    """absl.app.run: parse sys.argv with make_parser(), call run(args) and
    exit with its status."""

    def parse(argv):
        args = make_parser().parse_args(argv[1:])
        flags.FLAGS.mark_as_parsed()  # app.run insists; no absl flag is defined
        return args

    app.run(run, flags_parser=parse)
