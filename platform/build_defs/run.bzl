"""rocke_run: one action running a tool built in the target configuration.

A genrule builds its `tools` in the exec configuration, so a tool that links
the C++ engine (rocke-emit, the pybind engine a catalog's kernel_main loads,
the LLVM linker extensions) compiles every C++ file a second time, at -c opt,
beside the target build its tests already make: half the C++ compile of a cold
`bazel test //...`. This machine builds for itself (the exec and target
platforms are the same host, locally and on the remote executor), so the
target configuration's build of the tool runs here as well, and one build of
each C++ file serves the tests and the actions.
"""

def _rocke_run_impl(ctx):
    targets = ctx.attr.srcs + [ctx.attr.tool]
    ctx.actions.run(
        executable = ctx.attr.tool[DefaultInfo].files_to_run,
        arguments = [ctx.expand_location(arg, targets) for arg in ctx.attr.arguments],
        inputs = ctx.files.srcs,
        outputs = ctx.outputs.outs,
        mnemonic = ctx.attr.mnemonic,
        progress_message = "%{label}: " + ctx.attr.mnemonic,
    )
    return [DefaultInfo(files = depset(ctx.outputs.outs))]

rocke_run = rule(
    implementation = _rocke_run_impl,
    doc = "Runs `tool` with `arguments` ($(execpath) of srcs, tool and outs expanded), writing `outs`.",
    attrs = {
        "tool": attr.label(mandatory = True, executable = True, cfg = "target"),
        "srcs": attr.label_list(allow_files = True),
        "outs": attr.output_list(mandatory = True),
        "arguments": attr.string_list(doc = "one argument each, $(execpath LABEL) expanded"),
        "mnemonic": attr.string(default = "RockeRun"),
    },
)
