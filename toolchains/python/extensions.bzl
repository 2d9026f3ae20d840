"""The `rocke_python` repository: headers of the interpreter that runs tests.

pybind11 extensions must be compiled against the Python and pybind11 headers
of the very interpreter that imports them. This extension asks the root's venv
interpreter (built by toolchains/sysroot/build_root.sh) where those live and
exposes them as cc_library targets.
"""

# The venv build_root.sh creates from requirements.lock.
VENV_PYTHON = "/opt/rocke/venv/bin/python3"

# The root's marker (build_root.sh): its key and the sizes of its key files.
# Repositories that read the root watch it instead of being `local`: a local
# repository is fetched again at every Bazel server start, rewriting files
# that actions read (a build once died with "toolchain.json was modified
# during execution"); a watched one is fetched again only when the root
# changes.
ROOT_MARKER = "/.rocke-root"

_QUERY = "; ".join([
    "import sys, sysconfig, pybind11",
    "print(sysconfig.get_paths()['include'])",
    "print(pybind11.get_include())",
    "print(sys.version.split()[0])",
])

_BUILD = """\
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "python_headers",
    hdrs = glob(["python_include/**/*.h"]),
    includes = ["python_include"],
)

cc_library(
    name = "pybind11_headers",
    hdrs = glob(["pybind11_include/**/*.h"]),
    includes = ["pybind11_include"],
    deps = [":python_headers"],
)

exports_files(["defs.bzl"])
"""

def _rocke_python_repo_impl(rctx):
    rctx.watch(ROOT_MARKER)
    result = rctx.execute([VENV_PYTHON, "-c", _QUERY])
    if result.return_code != 0:
        fail("rocke_python: cannot query the venv interpreter {}: {}\nIs Bazel running inside the pinned root (./bazel)?".format(
            VENV_PYTHON,
            result.stderr,
        ))
    python_include, pybind11_include, version = result.stdout.strip().split("\n")
    rctx.symlink(python_include, "python_include")
    rctx.symlink(pybind11_include, "pybind11_include")
    rctx.file("BUILD.bazel", _BUILD)
    rctx.file("defs.bzl", "PYTHON = {}\nPYTHON_VERSION = {}\n".format(repr(VENV_PYTHON), repr(version)))

rocke_python_repo = repository_rule(
    implementation = _rocke_python_repo_impl,
)

python_env = module_extension(
    implementation = lambda mctx: rocke_python_repo(name = "rocke_python"),
)
