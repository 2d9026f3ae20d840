"""Repositories @llvm20, @llvm22, @llvm23 and @llvm24: one LLVM toolchain each.

Setting a repository up runs toolchains/llvm/setup.py with the root's Python:
it asks the real tool for its version and fails, naming the expected and the
found version, when they differ. Its output, toolchain.json, is what every rule
and test reads to reach that LLVM.
"""

load("//toolchains/llvm:flavors.bzl", "DEFAULT_LLVM_VERSION", "LLVM_FLAVORS")
load("//toolchains/python:extensions.bzl", "ROOT_MARKER", "VENV_PYTHON")

_BUILD = """\
load("@rocke//toolchains/llvm:defs.bzl", "llvm_toolchain")

llvm_toolchain(
    name = "toolchain",
    config = "toolchain.json",
    visibility = ["//visibility:public"],
)

exports_files(["toolchain.json"], visibility = ["//visibility:public"])
"""

def _llvm_repo_impl(rctx):
    setup = rctx.path(Label("//toolchains/llvm:setup.py"))
    manifest = rctx.path(Label("//toolchains/sysroot:manifest"))
    lock = rctx.path(Label("//toolchains/llvm:llvmlite.lock"))
    rctx.watch(ROOT_MARKER)
    result = rctx.execute([
        VENV_PYTHON,
        str(setup),
        "--flavor",
        rctx.attr.flavor,
        "--facts",
        json.encode(dict(LLVM_FLAVORS[rctx.attr.flavor], default = rctx.attr.flavor == DEFAULT_LLVM_VERSION)),
        "--manifest",
        str(manifest),
        "--llvmlite-lock",
        str(lock),
        "--root-stamp",
        ROOT_MARKER,
    ])
    if result.return_code != 0:
        fail("setting up the LLVM toolchain llvm{} failed:\n{}".format(rctx.attr.flavor, result.stderr))
    rctx.file("toolchain.json", result.stdout)
    rctx.file("BUILD.bazel", _BUILD)

llvm_repo = repository_rule(
    implementation = _llvm_repo_impl,
    attrs = {"flavor": attr.string(mandatory = True)},
)

def _llvm_impl(mctx):
    for version in LLVM_FLAVORS:
        llvm_repo(name = "llvm" + version, flavor = version)

llvm = module_extension(implementation = _llvm_impl)
