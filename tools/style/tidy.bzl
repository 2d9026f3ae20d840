"""clang-tidy over the C and C++ sources of a package's cc targets.

Each source is tidied once per cc target that compiles it, by a build action
(tidy_main.py run) with that target's own flags: its copts and local_defines,
and the defines and include paths of its CcInfo and its deps' (so generated
headers and external ones resolve as they do for the compiler). The action
writes the findings to a report file and succeeds; the package's tidy_test
(style.bzl) reads the reports and fails on any finding. An edit re-tidies only
the sources whose inputs changed; the rest come from Bazel's caches.
"""

TidyInfo = provider(
    doc = "The clang-tidy reports of one cc target's own sources.",
    fields = {"reports": "dict: a source's path -> its report file"},
)

# The rules whose sources are tidied; pybind_extension is a cc_binary.
CC_RULES = ["cc_library", "cc_binary", "cc_test"]

def _own_sources(ctx):
    """The target's source files (not generated) of its own package."""
    files = []
    for attr in ("srcs", "hdrs", "textual_hdrs"):
        for t in getattr(ctx.rule.attr, attr, []):
            files += t.files.to_list()
    return [f for f in files if f.is_source and f.owner.workspace_name == "" and f.owner.package == ctx.label.package]

def _flags(ctx, target):
    """(compile flags, headers depset) of the target, as its compile sees them."""
    contexts = [d[CcInfo].compilation_context for d in ctx.rule.attr.deps if CcInfo in d]
    if CcInfo in target:
        contexts.append(target[CcInfo].compilation_context)
    cc = cc_common.merge_compilation_contexts(compilation_contexts = contexts)

    # Bazel's cc rules search the execroot and the output tree for quoted
    # includes of every target, whatever its deps.
    flags = ["-iquote", ".", "-iquote", ctx.bin_dir.path]
    for d in cc.quote_includes.to_list():
        flags += ["-iquote", d]
    for d in cc.includes.to_list():
        flags += ["-I", d]
    for d in cc.system_includes.to_list():
        flags += ["-isystem", d]
    flags += ["-D" + d for d in cc.defines.to_list() + getattr(ctx.rule.attr, "local_defines", [])]
    flags += getattr(ctx.rule.attr, "copts", [])
    return flags, cc.headers

def _tidy_aspect_impl(target, ctx):
    own = _own_sources(ctx)
    sources = [f for f in own if f.extension in ("c", "cc")]
    if not sources:
        return [TidyInfo(reports = {})]
    flags, headers = _flags(ctx, target)

    config = ctx.file._config
    reports = {}
    for src in sources:
        report = ctx.actions.declare_file("{}.tidy/{}.txt".format(ctx.label.name, src.basename))
        ctx.actions.run(
            executable = ctx.executable._tidy,
            arguments = ["run", config.path, ctx.label.package, report.path, src.path, "--"] + flags,
            inputs = depset([config] + own, transitive = [headers]),
            outputs = [report],
            mnemonic = "ClangTidy",
            progress_message = "clang-tidy {} ({})".format(src.short_path, ctx.label),
        )
        reports[src.path] = report
    return [TidyInfo(reports = reports)]

tidy_aspect = aspect(
    implementation = _tidy_aspect_impl,
    doc = "Runs clang-tidy over the target's own C and C++ sources (TidyInfo).",
    attrs = {
        "_config": attr.label(default = "//:.clang-tidy", allow_single_file = True),
        "_tidy": attr.label(default = "//tools/style:tidy_run", executable = True, cfg = "exec"),
    },
)

def _tidy_reports_impl(ctx):
    wanted = {f.path: True for f in ctx.files.srcs}
    reports = []
    tidied = {}
    for t in ctx.attr.targets:
        for path, report in t[TidyInfo].reports.items():
            if path in wanted:
                tidied[path] = True
                reports.append(report)
    untidied = [path for path in wanted if path not in tidied]
    if untidied:
        fail("tidy: {} compiled by no cc rule of //{} that rocke_style_test() sees; clang-tidy needs a rule's flags. ".format(
            ", ".join(untidied),
            ctx.label.package,
        ) + "Call rocke_style_test() after the package's cc rules, or build the file in one of them.")
    return [DefaultInfo(files = depset(reports))]

tidy_reports = rule(
    implementation = _tidy_reports_impl,
    doc = "The clang-tidy reports of `srcs`, each tidied by the cc rules in `targets` that compile it.",
    attrs = {
        "srcs": attr.label_list(allow_files = [".c", ".cc"]),
        "targets": attr.label_list(aspects = [tidy_aspect]),
    },
)
