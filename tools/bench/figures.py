"""Where a bench's figures live: docs/figures/NAME.md in the checkout.

Each bench writes its own file, whole, through write_atomic, so the next run
replaces it and a killed run leaves the last complete one. The file opens
with a title and the line that says how to make it again and when it was
made:

    # TITLE

    `./bazel run -c opt //tools/bench:compile -- --kernels 24`, measured 2026-12-01 (2 cores, load average 0.1 0.2 0.3).

The command is the bench's label, its compilation mode (read from where
Bazel put the running script: bazel-out/k8-opt/... is `-c opt`) and every
option with the value it ran with, defaults included, so it repeats the run
even if a default changes. Markdown text only; the benches print the same
body to stdout.
"""

import os
import re
import sys
import time

from files.atomic import OutputError, write_atomic

FOLDER = os.path.join("docs", "figures")
# bazel-out/<cpu>-<mode>[-ST-hash]/bin: the mode the binary was built in.
_MODE = re.compile(r"/bazel-out/[^/]*?-(opt|dbg|fastbuild)(?:-[^/]*)?/bin/")
# Compilation mode -> the flag that selects it (fastbuild is Bazel's default).
_MODE_FLAGS = {"opt": "-c opt ", "dbg": "-c dbg ", "fastbuild": ""}


class FiguresError(Exception):
    """The figures file could not be written; the message is one line."""


def mode_flag(script_path):
    """`-c opt ` (with its space), `-c dbg ` or "" for the mode Bazel built
    `script_path` in; "" for a path outside bazel-out (run by hand)."""
    m = _MODE.search(os.path.abspath(script_path))
    return _MODE_FLAGS[m.group(1)] if m else ""


def command(label, script_path, options=()):
    """The `./bazel run` line that repeats this run: `options` is a sequence
    of (flag, value) pairs, value None for a flag without one."""
    words = []
    for flag, value in options:
        words += [flag] if value is None else [flag, str(value)]
    tail = f" -- {' '.join(words)}" if words else ""
    return f"./bazel run {mode_flag(script_path)}{label}{tail}"


def machine():
    """The conditions every figure depends on: cores and load."""
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{os.cpu_count()} cores, load average {load}"


def render(title, cmd, body, date):
    return f"# {title}\n\n`{cmd}`, measured {date} ({machine()}).\n\n{body.rstrip()}\n"


def write(name, title, cmd, body, date=None):
    """Writes docs/figures/NAME.md in the checkout `bazel run` started from and
    returns its path. FiguresError when not run by `bazel run` or when the
    file cannot be written."""
    checkout = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if not checkout:
        raise FiguresError(
            f"{name}: not run by `bazel run`, so there is no checkout to write {FOLDER}/{name}.md into; run {cmd}"
        )
    path = os.path.join(checkout, FOLDER, f"{name}.md")
    text = render(title, cmd, body, date or time.strftime("%Y-%m-%d"))
    try:
        write_atomic(path, text.encode())
    except OutputError as e:
        raise FiguresError(str(e)) from None
    return path


def publish(name, title, cmd, body, shown=None):
    """Prints `shown` (default: `body`), writes `body` to docs/figures/NAME.md
    and says where; returns the exit status: 1, with one line on stderr,
    when the file could not be written."""
    print(body if shown is None else shown)
    try:
        path = write(name, title, cmd, body)
    except FiguresError as e:
        print(f"bench: {e}", file=sys.stderr)
        return 1
    print(f"bench: wrote {path}", file=sys.stderr)
    return 0
