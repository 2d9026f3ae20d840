"""conv_fullsize_test: a conv family at full size, emitted by build actions
and compiled by a test per flavor."""

load("@rules_python//python:defs.bzl", "py_binary")
load("//toolchains/llvm:flavors.bzl", "LLVM_VERSIONS")
load("//toolchains/python:defs.bzl", "py_pytest")

# Loaded by library/conv/BUILD.bazel only.
visibility("private")

def conv_fullsize_test(name, module, deps, tags, depthwise_from = None):
    """A conv family's full-size layers (fullsize_emit.py), each flavor's IR
    made by a build action, so that an edit leaving the IR's bytes unchanged
    (a comment) leaves the tests that compile it cached.

    Creates:
      name + "_emitter":       py_binary of fullsize_emit.py with the family.
      name + "_ir_llvmNN":     genrule -> NAME.llvmNN.irs.json and
                               NAME.llvmNN.manifest, the cases lowered by
                               LLVM NN's flavor (a rejection for an arch it
                               does not know).
      name + "_llvmNN":        test (fullsize_test.py): every case on an arch
                               the flavor knows was lowered, and compiles and
                               links with no spill, within its arch's
                               registers. Tags: `tags` and flavor=llvmNN.
      name:                    test_suite of those tests, tagged manual.
    for each NN of //toolchains/llvm:flavors.bzl's LLVM_VERSIONS.

    Args:
      name: the test's name.
      module: import path of the family's module (e.g. conv.direct_fwd).
      deps: py_library targets providing `module`.
      tags: tags of every test (family=NAME).
      depthwise_from: a problems file (a label) whose depthwise layers are
        cases too (fullsize_emit.py --depthwise-from).
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
    extra = " --depthwise-from $(execpath {})".format(depthwise_from) if depthwise_from else ""
    tests = []
    for version in LLVM_VERSIONS:
        flavor = "llvm" + version
        irs, manifest = "{}.{}.irs.json".format(name, flavor), "{}.{}.manifest".format(name, flavor)
        native.genrule(
            name = "{}_ir_{}".format(name, flavor),
            srcs = [depthwise_from] if depthwise_from else [],
            outs = [irs, manifest],
            cmd = ("$(execpath :{e}) --family {m} --flavor {f} " +
                   "--irs $(execpath {i}) --manifest $(execpath {n}){x}").format(
                e = emitter,
                m = module,
                f = flavor,
                i = irs,
                n = manifest,
                x = extra,
            ),
            tools = [":" + emitter],
        )
        test = "{}_{}".format(name, flavor)
        py_pytest(
            name = test,
            size = "medium",
            srcs = ["fullsize_test.py"],
            data = [irs, manifest, "@{}//:toolchain.json".format(flavor)],
            env = {
                "ROCKE_FULLSIZE_IRS": "$(rootpath {})".format(irs),
                "ROCKE_FULLSIZE_MANIFEST": "$(rootpath {})".format(manifest),
                "ROCKE_LLVM": "$(rootpath @{}//:toolchain.json)".format(flavor),
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
