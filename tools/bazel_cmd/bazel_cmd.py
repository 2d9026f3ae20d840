"""Bazel as the tools run it (bless, affected): the checkout's ./bazel, and
the one spelling of "has this exact tag" in a query.

The shell checks (tools/checks/*.sh) cannot import this; they spell the tag
pattern once each, as `tag()` in no_drop.sh shows.
"""

import os
import subprocess


def has_tag(tag, expr):
    """The targets of query `expr` tagged exactly `tag` (not `golden_extra`
    for `golden`): Bazel's `attr` matches the tag list's text `[a, b]`."""
    return f'attr(tags, "(^|[\\[ ,]){tag}([\\] ,]|$)", {expr})'


def run(ws, args, error):
    """stdout of `./bazel ARGS` in checkout `ws`; raises `error` (an exception
    class) with the command, its exit status and the end of its stderr."""
    proc = subprocess.run([os.path.join(ws, "bazel"), *args], cwd=ws, capture_output=True, text=True)
    if proc.returncode != 0:
        raise error(f"bazel {' '.join(args)} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return proc.stdout
