"""clang-tidy over one source file, and the verdict over a package's reports.

    tidy_main.py run CONFIG PACKAGE REPORT SOURCE -- FLAG...
    tidy_main.py check REPORT...

`run` (a build action, one per source file and cc target; tools/style/tidy.bzl)
runs clang-tidy-23 with the repository's .clang-tidy over SOURCE compiled with
FLAGS, from the execroot, and writes its findings to REPORT, with paths relative
to the execroot: nothing if the file is clean. Findings in headers count for the
headers of PACKAGE itself (its folder's *.h, as the style test), so each header
is reported by its own package. It exits 0 either way, so that a finding is a
test failure, not a build error, and the action is cached.

`check` (the package's tidy_test) prints every finding of REPORTs once (a header
included by several sources is reported by each) and exits 1 if there is any.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

CLANG_TIDY = "/usr/bin/clang-tidy-23"
# The compiler driver of clang-tidy's LLVM, by its real path: in Bazel's
# sandbox there is no /proc, so clang-tidy cannot find its own installation;
# a compile command that names this driver gives clang its installation (and
# GCC's, whose libstdc++ the code is built with), and the driver prints the
# resource folder (clang's own headers) that clang-tidy would not find.
CLANG = "/usr/lib/llvm-23/bin/clang"

# The first line of a diagnostic ("FILE:LINE:COL: warning: TEXT [CHECK]"); the
# lines after it, up to the next such line, are its source excerpt and notes.
_DIAGNOSTIC = re.compile(r"^\S+:\d+:\d+: (warning|error): ")

FIX = (
    "fix: change the code, or keep it with a comment that says why: // NOLINT(check-name): reason "
    "(checks and the reasons some are off: .clang-tidy)"
)


def header_filter(package, cwd):
    """The regex of the package's own headers, as clang-tidy names them: from
    the quoted include path "." ("./pkg/a.h"), beside the source ("pkg/a.h"),
    or absolute."""
    return f"^({re.escape(cwd)}/|\\./)?{re.escape(package)}/[^/]+\\.h$"


def tidy(config, package, source, flags):
    """The findings text of clang-tidy over `source` ("" if clean)."""
    cwd = os.getcwd()
    resource_dir = subprocess.run([CLANG, "-print-resource-dir"], capture_output=True, text=True, check=True)
    command = [CLANG, "-resource-dir", resource_dir.stdout.strip(), *flags, "-c", source]
    with tempfile.TemporaryDirectory() as db:
        with open(os.path.join(db, "compile_commands.json"), "w") as f:
            json.dump([{"directory": cwd, "file": source, "arguments": command}], f)
        argv = [
            CLANG_TIDY,
            f"--config-file={config}",
            f"--header-filter={header_filter(package, cwd)}",
            "--quiet",
            "-p",
            db,
            source,
        ]
        proc = subprocess.run(argv, capture_output=True, text=True)
    out = proc.stdout
    if proc.returncode != 0:
        # A compile error (or a broken configuration): its text is on stderr.
        out += proc.stderr
        if not out.strip():
            out = f"{source}:1:1: error: clang-tidy exited with status {proc.returncode} and said nothing\n"
    return out.replace(cwd + "/", "")


def findings(text):
    """The diagnostics of one report, each with its excerpt and notes."""
    blocks = []
    for line in text.splitlines(keepends=True):
        if _DIAGNOSTIC.match(line) or not blocks:
            blocks.append(line)
        else:
            blocks[-1] += line
    return [b for b in blocks if _DIAGNOSTIC.match(b)] or ([text] if text.strip() else [])


def run(argv):
    if len(argv) < 5 or argv[4] != "--":
        print("usage: tidy_main.py run CONFIG PACKAGE REPORT SOURCE -- FLAG...", file=sys.stderr)
        return 2
    config, package, report, source = argv[:4]
    with open(report, "w") as f:
        f.write(tidy(config, package, source, argv[5:]))
    return 0


def check(reports):
    if not reports:
        print("tidy: no reports to check; this package compiles no C or C++ source of its own", file=sys.stderr)
        return 1
    seen = []
    for path in reports:
        with open(path) as f:
            for block in findings(f.read()):
                if block not in seen:
                    seen.append(block)
    sys.stdout.write("".join(seen))
    if seen:
        print(FIX)
    print(f"tidy: {len(reports)} compiled sources, {f'{len(seen)} findings above' if seen else 'clean'}")
    return 1 if seen else 0


def main(argv):
    mode = argv[1] if len(argv) > 1 else ""
    if mode == "run":
        return run(argv[2:])
    if mode == "check":
        return check(argv[2:])
    print(f"tidy_main.py: got mode {mode!r}; expected 'run' or 'check' (see the module's docstring)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
