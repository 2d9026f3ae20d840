"""The layering wall holds at run time too: a test with no library dependency
cannot read library code by any path it could guess.

Bazel's visibility check stops a platform target from *depending* on library/;
this probe checks that the test sandbox stops a platform test from *reading*
library/ behind Bazel's back (the checkout found from the test's own real
path, $ROCKE_CHECKOUT, any checkout under /work, the execroot, any output base,
the environment and working folder of every visible process). It declares no
library dependency, so every library file must be out of its reach.
"""

import glob
import os

# Files that exist in every checkout (library/'s package and a family package).
LIBRARY_FILES = ("library/BUILD.bazel", "library/conv/BUILD.bazel")


def ancestors(path):
    """path and every folder above it."""
    path = os.path.abspath(path)
    while True:
        yield path
        parent = os.path.dirname(path)
        if parent == path:
            return
        path = parent


def checkouts_named_by_processes():
    """$ROCKE_CHECKOUT of every process this test can see."""
    for proc in glob.glob("/proc/[0-9]*"):
        try:
            with open(proc + "/environ", "rb") as f:
                for entry in f.read().split(b"\0"):
                    if entry.startswith(b"ROCKE_CHECKOUT="):
                        yield entry.split(b"=", 1)[1].decode()
        except OSError:
            pass


def process_folders():
    """Every visible process's working folder (the link, and where it points)
    and its root joined with each checkout a process names."""
    checkouts = set(checkouts_named_by_processes())
    for proc in glob.glob("/proc/[0-9]*"):
        yield proc + "/cwd"
        try:
            yield from ancestors(os.readlink(proc + "/cwd"))
        except OSError:
            pass
        for checkout in checkouts:
            yield proc + "/root" + checkout


def candidate_roots():
    """(how, folder) pairs: every folder a test might take for a checkout."""
    here = os.path.dirname(os.path.abspath(__file__))
    sources = {
        "this file's real path": ancestors(os.path.realpath(__file__)),
        "this file's path": ancestors(here),
        "the working folder": ancestors(os.getcwd()),
        "the working folder's real path": ancestors(os.path.realpath(os.getcwd())),
        "$ROCKE_CHECKOUT": [os.environ["ROCKE_CHECKOUT"]] if "ROCKE_CHECKOUT" in os.environ else [],
        "$TEST_SRCDIR": [os.path.join(os.environ.get("TEST_SRCDIR", "/nonexistent"), "_main")],
        "a checkout under /work": glob.glob("/work/*") + ["/work"],
        "an output base's execroot": glob.glob("/var/cache/rocke/bazel/out/*/execroot/_main"),
        "a sandbox of another action": glob.glob("/var/cache/rocke/bazel/out/*/sandbox/*/*/execroot/_main"),
        "another process": process_folders(),
    }
    for how, folders in sources.items():
        for folder in folders:
            yield how, folder


def readable(path):
    try:
        with open(path, "rb") as f:
            f.read(1)
        return True
    except OSError:
        return False


def test_library_code_is_unreadable():
    found = sorted(
        {
            f"{os.path.join(folder, name)} (via {how})"
            for how, folder in candidate_roots()
            for name in LIBRARY_FILES
            if readable(os.path.join(folder, name))
        }
    )
    assert not found, "a test without a library dependency read library code:\n" + "\n".join(found)


def test_the_probe_can_read_what_it_declares():
    """The probe's own source, found the way it looks for library files, is readable:
    an unreadable library is the sandbox's doing, not a broken probe."""
    own = "tools/layering_probe/library_unreadable_test.py"
    assert any(readable(os.path.join(folder, own)) for _, folder in candidate_roots())
