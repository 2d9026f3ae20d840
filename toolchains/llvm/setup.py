"""Sets up one LLVM toolchain: checks the real tool's version, prints toolchain.json.

Run by the @llvmNN repository rules (extensions.bzl) with the root's Python.
Exit status 1 with a message naming the expected and the found version when the
tool is not the LLVM it is declared to be.
"""

import argparse
import json
import os
import re
import subprocess
import sys

VERSION_QUERIES = {
    # kind -> (command given the flavor facts, regex over its stdout)
    "llc": (lambda f: [f["bin"] + "/llc", "--version"], r"LLVM version (\S+)"),
    "llvmlite": (
        lambda f: [
            f["python"],
            "-c",
            "import llvmlite.binding as b; print('.'.join(map(str, b.llvm_version_info)))",
        ],
        r"^(\d+\.\d+\.\d+)",
    ),
}


class SetupError(Exception):
    pass


def reported_version(facts):
    command, pattern = VERSION_QUERIES[facts["kind"]]
    argv = command(facts)
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except OSError as e:
        raise SetupError(f"cannot run {argv[0]}: {e.strerror}") from None
    match = re.search(pattern, proc.stdout, re.M)
    if proc.returncode != 0 or not match:
        raise SetupError(f"{' '.join(argv)} exited {proc.returncode} without a version: {proc.stderr.strip()}")
    return match.group(1)


def check_library(flavor, facts):
    """The shared libLLVM llvm.py compiles with in-process, where the flavor has one."""
    path = facts.get("library")
    if path is not None and not os.path.isfile(path):
        raise SetupError(
            f"llvm{flavor}: expected the shared library {path} (package {facts['package']}), found none; rebuild the root or fix flavors.bzl"
        )
    return path


def check_version(flavor, facts):
    found = reported_version(facts)
    if found != facts["version"]:
        raise SetupError(
            f"llvm{flavor}: expected LLVM {facts['version']}, found {found}. "
            "The pinned root and toolchains/llvm/flavors.bzl disagree; update the "
            "version there (and re-run the conformance tests) or rebuild the root."
        )
    return found


def source(facts, manifest_text, lock_text):
    """Where the toolchain came from: 'Debian package NAME VERSION' or 'PyPI wheel NAME==VERSION'."""
    if "package" in facts:
        for line in manifest_text.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[0] in ("package", "experimental") and parts[1] == facts["package"]:
                suite = "sid" if parts[0] == "package" else "experimental"
                return f"Debian package {parts[1]} {parts[2]} ({suite})"
        raise SetupError(f"package {facts['package']} is not pinned in toolchains/sysroot/manifest")
    match = re.search(rf"^{re.escape(facts['wheel'])}==(\S+)", lock_text, re.M)
    if not match:
        raise SetupError(f"wheel {facts['wheel']} is not pinned in toolchains/llvm/llvmlite.lock")
    return f"PyPI wheel {facts['wheel']}=={match.group(1)}"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--flavor", required=True)
    parser.add_argument("--facts", required=True, help="this flavor's entry of flavors.bzl, as JSON")
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--llvmlite-lock", required=True)
    parser.add_argument("--root-stamp", required=True)
    args = parser.parse_args(argv)
    facts = json.loads(args.facts)
    with open(args.manifest) as m, open(args.llvmlite_lock) as lock, open(args.root_stamp) as stamp:
        manifest_text, lock_text, root_key = m.read(), lock.read(), stamp.readline().split()[1]
    try:
        check_library(args.flavor, facts)
        config = {
            "flavor": "llvm" + args.flavor,
            "version": check_version(args.flavor, facts),
            "source": source(facts, manifest_text, lock_text),
            "kind": facts["kind"],
            # Whether this is the flavor commands use when given none (flavors.bzl).
            "default": facts["default"],
            # Tools live in the pinned root; its key makes a new root a new input.
            "root": root_key,
            "tools": {k: v for k, v in facts.items() if k in ("bin", "python", "lld", "library", "linker")},
        }
    except SetupError as e:
        print(e, file=sys.stderr)
        return 1
    print(json.dumps(config, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
