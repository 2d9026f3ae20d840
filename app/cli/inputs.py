"""What the commands share: families and cases of the registry the
command line was given (args.families, command_line.py), the toolchains
this program was given, --out paths, and Refused, the one-line refusal each
command prints."""

import difflib
import os

from app.cli.toolchains_cmd import configs


class Refused(Exception):
    """A request the command refuses; the message is the one line it prints."""


def out_path(out):
    """Where --out really writes: relative to where `bazel run` was started,
    symlinks resolved, and inside the checkout (the only host folder the
    pinned root shares for outputs)."""
    base = os.environ.get("BUILD_WORKING_DIRECTORY", os.getcwd())
    path = os.path.realpath(os.path.join(base, out))
    checkout = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if checkout:
        checkout = os.path.realpath(checkout)
        if not path.startswith(checkout + os.sep):
            raise Refused(
                f"cannot write {path}: ./bazel runs in the pinned root, whose outputs reach the host only inside the checkout {checkout}; give an --out path inside it"
            )
    return path


def load_family(families, name):
    """The Family of registry module `name` (conv.direct_fwd) or of the
    registered family called `name` (conv_direct_fwd) in `families` (module
    -> Family); Refused names what the registry offers."""
    if name in families:
        return families[name]
    # A family's own name (Family.name) works too.
    by_name = {fam.name: fam for fam in families.values()}
    if name in by_name:
        return by_name[name]
    offered = ", ".join(families)
    close = difflib.get_close_matches(name, [*families, *by_name], n=1)
    hint = f" Did you mean {close[0]}?" if close else ""
    raise Refused(f"expected a family of the registry, got {name!r}; the registry offers: {offered}.{hint}")


def default_flavor():
    """The flavor a command uses when given none: the one toolchain whose
    toolchain.json says it is the default (toolchains/llvm/flavors.bzl)."""
    marked = [t.flavor for t in configs() if t.default]
    if len(marked) != 1:
        raise Refused(
            f"expected one default toolchain among this program's, got {', '.join(marked) or 'none'}; "
            "run it through ./bazel run //tools:rocke, which gives it all four"
        )
    return marked[0]


def toolchain_for(flavor):
    """The Toolchain of `flavor` this program was given; Refused names the ones it has."""
    found = [t for t in configs() if t.flavor == flavor]
    if not found:
        have = ", ".join(sorted(t.flavor for t in configs())) or "none"
        raise Refused(
            f"expected the {flavor} toolchain among this program's, got only: {have}; run it through ./bazel run //tools:rocke, which gives it all four"
        )
    return found[0]


def list_cases(fam):
    """Print every case of `fam` with its arch (what --list does); exit status 0."""
    for c in fam.cases:
        print(f"{c.id}  {c.arch}")
    return 0


def find_case(fam, case_id):
    """The case `case_id` of `fam`; Refused suggests close ids."""
    cases = {c.id: c for c in fam.cases}
    if case_id not in cases:
        close = difflib.get_close_matches(str(case_id), cases, n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else " See --list."
        raise Refused(f"expected a case of {fam.name}, got {case_id!r}.{hint}")
    return cases[case_id]
