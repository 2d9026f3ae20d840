"""Checks source files against the repository's one style configuration.

    style_main.py RUFF_TOML MYPY_INI CLANG_FORMAT FILE...

Python files: `ruff check`, `ruff format --check` and `mypy`; C and C++
files: `clang-format --dry-run --Werror`. Prints each tool's findings
(file and line) and the command that fixes what a formatter can; exit
status 1 if any tool found anything, 0 otherwise. Every tool is the pinned
root's (ruff and mypy from the venv, clang-format-23 from Debian).
"""

import os
import subprocess
import sys

CLANG_FORMAT = "/usr/bin/clang-format-23"


def _run(what, argv, fix):
    """(ok, report) of one tool run."""
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode == 0:
        return True, ""
    out = (proc.stdout + proc.stderr).strip()
    return False, f"{what} failed:\n{out}\n{fix}\n"


def checks(ruff_toml, mypy_ini, clang_format, files):
    """[(what, argv, fix)] of the tools that apply to `files`."""
    py = [f for f in files if f.endswith(".py")]
    cc = [f for f in files if f.endswith((".c", ".cc", ".h"))]
    cache = os.path.join(os.environ.get("TEST_TMPDIR", "/tmp"), "mypy-cache")
    out = []
    if py:
        ruff = [sys.executable, "-m", "ruff"]
        out += [
            (
                "ruff check",
                [*ruff, "check", "--no-cache", "--config", ruff_toml, *py],
                "fix: ruff check --fix FILE (or by hand)",
            ),
            (
                "ruff format",
                [*ruff, "format", "--check", "--no-cache", "--config", ruff_toml, *py],
                "fix: ruff format FILE",
            ),
            (
                "mypy",
                [sys.executable, "-m", "mypy", "--config-file", mypy_ini, "--cache-dir", cache, *py],
                "fix: the types mypy names",
            ),
        ]
    if cc:
        out.append(
            (
                "clang-format",
                [CLANG_FORMAT, f"--style=file:{clang_format}", "--dry-run", "--Werror", *cc],
                "fix: clang-format-23 -i FILE",
            )
        )
    return out


def main(argv):
    if len(argv) < 4:
        print("usage: style_main.py RUFF_TOML MYPY_INI CLANG_FORMAT FILE...", file=sys.stderr)
        return 2
    ruff_toml, mypy_ini, clang_format, *files = argv[1:]
    if not files:
        print("style: this package has no sources to check; remove its rocke_style_test", file=sys.stderr)
        return 1
    failed = False
    for what, cmd, fix in checks(ruff_toml, mypy_ini, clang_format, files):
        ok, report = _run(what, cmd, fix)
        failed |= not ok
        sys.stdout.write(report)
    print(f"style: {len(files)} files, {'violations above' if failed else 'clean'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
