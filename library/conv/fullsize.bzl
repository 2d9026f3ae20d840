"""conv_fullsize_test: a conv family at full size, emitted by build actions
and compiled by a test per flavor."""

load("@rules_python//python:defs.bzl", "py_binary")
load("//toolchains/llvm:flavors.bzl", "LLVM_VERSIONS")
load("//platform/build_defs:run.bzl", "rocke_run")
load("//toolchains/python:defs.bzl", "py_pytest")

# Loaded by library/conv/BUILD.bazel only.
visibility("private")

def conv_fullsize_test(name, module, deps, tags, cases = "layers", depthwise_from = None, matrix = False, size = "medium"):
    """A conv family's full-size layers (fullsize_emit.py), every flavor's IR
    made by one build action, so that an edit leaving the IR's bytes unchanged
    (a comment) leaves the tests that compile it cached.

    Creates:
      name + "_emitter":       py_binary of fullsize_emit.py with the family.
      name + "_ir":            action -> for every NN, NAME.llvmNN.irs.json
                               and NAME.llvmNN.manifest, the case set
                               `cases` (fullsize_emit.py --cases), each case
                               built once and lowered by LLVM NN's flavor (a
                               rejection for an arch it does not know).
      name + "_ir_llvmNN":     filegroup of NN's two files.
      name + "_llvmNN":        test (fullsize_test.py): every case on an arch
                               the flavor knows was lowered, and compiles and
                               links with no spill, within its arch's
                               registers; with `matrix`, runs the arch's
                               matrix instruction; an f32 atomic add is the
                               arch's own instruction. Tags: `tags` and
                               flavor=llvmNN.
      name:                    test_suite of those tests, tagged manual.
    for each NN of //toolchains/llvm:flavors.bzl's LLVM_VERSIONS.

    Args:
      name: the test's name.
      module: import path of the family's module (e.g. conv.direct_fwd).
      deps: py_library targets providing `module`.
      tags: tags of every test (family=NAME).
      cases: the case set (fullsize_emit.py --cases: layers, igemm,
        igemm_split, wgrad).
      depthwise_from: a problems file (a label) whose depthwise layers are
        cases too (fullsize_emit.py --depthwise-from; with cases "layers").
      matrix: whether every case runs its arch's matrix instruction
        (compile_checks.MATRIX_INSTRUCTION).
      size: the tests' size (their timeout).
    """
    emitter = name + "_emitter"
    py_binary(
        name = emitter,
        srcs = ["fullsize_emit.py"],
        main = "fullsize_emit.py",
        data = ["//platform/family:emit.py"],  # `from family import emit`, as the emit gate's
        deps = deps + [
            ":common",
            "//library:case_archs",
            "//platform/family",
            "//platform/files",
            "//platform/ir",
            "//platform/lower",
        ],
    )
    extra = ["--cases", cases]
    if depthwise_from:
        extra += ["--depthwise-from", "$(execpath {})".format(depthwise_from)]
    files = {}  # flavor -> (irs, manifest)
    for version in LLVM_VERSIONS:
        flavor = "llvm" + version
        files[flavor] = "{}.{}.irs.json".format(name, flavor), "{}.{}.manifest".format(name, flavor)
        native.filegroup(
            name = "{}_ir_{}".format(name, flavor),
            srcs = list(files[flavor]),
        )
    flags = []
    for f in files:
        flags += ["--flavor", f, "--irs", "$(execpath {})".format(files[f][0]), "--manifest", "$(execpath {})".format(files[f][1])]
    rocke_run(
        name = name + "_ir",
        tool = ":" + emitter,
        srcs = [depthwise_from] if depthwise_from else [],
        outs = [f for pair in files.values() for f in pair],
        arguments = ["--family", module] + flags + extra,
        mnemonic = "RockeFullsizeEmit",
    )
    tests = []
    for flavor in files:
        irs, manifest = files[flavor]
        test = "{}_{}".format(name, flavor)
        py_pytest(
            name = test,
            size = size,
            srcs = ["fullsize_test.py"],
            data = [irs, manifest, "@{}//:toolchain.json".format(flavor)],
            env = {
                "ROCKE_FULLSIZE_IRS": "$(rootpath {})".format(irs),
                "ROCKE_FULLSIZE_MANIFEST": "$(rootpath {})".format(manifest),
                "ROCKE_LLVM": "$(rootpath @{}//:toolchain.json)".format(flavor),
                "ROCKE_FULLSIZE_MATRIX": "1" if matrix else "",
            },
            deps = [
                ":compile_checks",
                "//platform/family",
                "//platform/lower",
                "//toolchains/llvm",
            ],
            tags = tags + ["flavor=" + flavor],
        )
        tests.append(":" + test)
    native.test_suite(
        name = name,
        tests = tests,
        tags = ["manual"],
    )
