"""Repository @rocke_root: the key of the pinned root Bazel runs in.

Its defs.bzl holds ROOT_KEY, read from the root's stamp /.rocke-root
(toolchains/sysroot/build_root.sh writes "key KEY" there). The exec platform
//tools/remote:rocke_root asks remote workers for that key, so actions, which
name the root's absolute paths, run only in the same root. The stamp is
watched: a new root gives a new key.
"""

_STAMP = "/.rocke-root"

def _rocke_root_impl(rctx):
    stamp = rctx.path(_STAMP)
    if not stamp.exists:
        fail("@rocke_root: no {} here: Bazel is not running inside the pinned root. Run it through ./bazel.".format(_STAMP))
    first = rctx.read(stamp, watch = "yes").split("\n")[0].split(" ")
    if len(first) != 2 or first[0] != "key" or not first[1]:
        fail("@rocke_root: {} should start with a line 'key KEY', got {}; rebuild the root (toolchains/sysroot/root.sh verify).".format(_STAMP, repr(" ".join(first))))
    rctx.file("defs.bzl", "ROOT_KEY = {}\n".format(repr(first[1])))
    rctx.file("BUILD.bazel", "exports_files([\"defs.bzl\"])\n")

rocke_root = repository_rule(
    implementation = _rocke_root_impl,
    doc = "The pinned root's key, as ROOT_KEY in @rocke_root//:defs.bzl.",
)
