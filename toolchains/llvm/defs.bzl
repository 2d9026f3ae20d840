"""LLVM toolchain rules and the per-flavor test wrapper.

`--//toolchains/llvm:version` (20, 22, 23, 24; default 23) selects which of
the four toolchains resolves. `llvm_py_test` runs one pytest target under every
version in the same invocation, through a transition.
"""

load("//toolchains/llvm:flavors.bzl", "LLVM_VERSIONS")
load("//toolchains/python:defs.bzl", "py_pytest")

LLVM_TOOLCHAIN_TYPE = "//toolchains/llvm:toolchain_type"

LlvmInfo = provider(
    doc = "One LLVM flavor: its toolchain.json, which llvm.py reads.",
    fields = {"config": "File: toolchain.json written by setup.py"},
)

def _llvm_toolchain_impl(ctx):
    return [platform_common.ToolchainInfo(llvm = LlvmInfo(config = ctx.file.config))]

llvm_toolchain = rule(
    implementation = _llvm_toolchain_impl,
    doc = "Declares one LLVM flavor for toolchain(); created in each @llvmNN repository.",
    attrs = {"config": attr.label(allow_single_file = [".json"], mandatory = True)},
)

def _current_llvm_impl(ctx):
    config = ctx.toolchains[LLVM_TOOLCHAIN_TYPE].llvm.config
    return [DefaultInfo(files = depset([config]), runfiles = ctx.runfiles([config]))]

current_llvm = rule(
    implementation = _current_llvm_impl,
    doc = "The toolchain.json of the LLVM that --//toolchains/llvm:version selects.",
    toolchains = [LLVM_TOOLCHAIN_TYPE],
)

def _version_transition_impl(settings, attr):
    return {"//toolchains/llvm:version": attr.llvm_version}

_version_transition = transition(
    implementation = _version_transition_impl,
    inputs = [],
    outputs = ["//toolchains/llvm:version"],
)

def _flavored_test_impl(ctx):
    test = ctx.attr.test[0]
    executable = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.symlink(output = executable, target_file = test[DefaultInfo].files_to_run.executable, is_executable = True)
    providers = [DefaultInfo(executable = executable, runfiles = test[DefaultInfo].default_runfiles)]
    if RunEnvironmentInfo in test:
        providers.append(test[RunEnvironmentInfo])
    return providers

_flavored_test = rule(
    implementation = _flavored_test_impl,
    doc = "Runs `test`, built with --//toolchains/llvm:version=llvm_version.",
    attrs = {
        "test": attr.label(cfg = _version_transition, executable = True, mandatory = True),
        "llvm_version": attr.string(mandatory = True, values = LLVM_VERSIONS),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
    test = True,
)

def llvm_py_test(name, srcs, versions = LLVM_VERSIONS, deps = [], data = [], env = {}, tags = [], size = "medium", **kwargs):
    """A pytest target run once per LLVM flavor, side by side.

    Creates:
      `name + "_impl"`: the py_pytest itself, with ROCKE_LLVM naming the
          toolchain.json of the configured flavor. Tagged manual: on its own
          it would only run the default flavor; the wrappers below run it.
      `name + "_llvmNN"` for NN in `versions`: a test that runs `_impl` built
          with --//toolchains/llvm:version=NN, tagged flavor=llvmNN.
      `name`: a test_suite of those wrappers.

    Args:
      name: base name.
      srcs: pytest files.
      versions: which flavors to run under (default: all four).
      deps: py_library deps.
      data: runtime data.
      env: extra environment for the test.
      tags: tags for every wrapper.
      size: test size of every wrapper.
      **kwargs: passed to py_pytest.
    """
    py_pytest(
        name = name + "_impl",
        srcs = srcs,
        deps = deps + ["//toolchains/llvm:llvm"],
        data = data + ["//toolchains/llvm:current"],
        env = dict(env, ROCKE_LLVM = "$(rootpath //toolchains/llvm:current)"),
        tags = ["manual"],
        size = size,
        **kwargs
    )
    for version in versions:
        _flavored_test(
            name = "{}_llvm{}".format(name, version),
            test = ":" + name + "_impl",
            llvm_version = version,
            tags = tags + ["flavor=llvm" + version],
            size = size,
        )
    native.test_suite(
        name = name,
        tests = ["{}_llvm{}".format(name, v) for v in versions],
        tags = ["manual"],
    )
