"""rocke_style_test: a package's sources against the one style configuration."""

load("@rules_python//python:defs.bzl", "py_test")
load(":tidy.bzl", "CC_RULES", "tidy_reports")

# The one configuration of each tool, at the top of the repository.
CONFIGS = ["//:ruff.toml", "//:mypy.ini", "//:.clang-format"]

def rocke_style_test(name = "style_test", exclude = []):
    """Tests that fail on any style violation in this package's sources.

    Creates `name`: a py_test (size small, tag style) running
    tools/style/style_main.py over this package's *.py files (ruff check,
    ruff format --check, mypy) and *.c, *.cc, *.h files (clang-format),
    each tool with its configuration in CONFIGS.

    If the package has *.c or *.cc files, also `tidy_test` (size small, tags
    style and tidy): clang-tidy-23 with //:.clang-tidy over each of them, with
    the flags of each cc rule of the package that compiles it, and over the
    package's headers they include (tidy.bzl). Call it after the package's cc
    rules: it tidies what the rules defined before it compile.

    A change to a package's sources re-runs only that package's tests (and
    clang-tidy only for the sources whose inputs changed).

    Args:
      name: the style test's name.
      exclude: files of this package the tools leave alone (generated or
        third-party text), as glob patterns.
    """
    srcs = native.glob(["*.py", "*.c", "*.cc", "*.h"], exclude = exclude, allow_empty = True)
    py_test(
        name = name,
        size = "small",
        srcs = ["//tools/style:style_main.py"],
        main = "//tools/style:style_main.py",
        args = ["$(rootpath {})".format(c) for c in CONFIGS] + ["$(rootpath {})".format(s) for s in srcs],
        data = CONFIGS + srcs,
        tags = ["style"],
    )
    compiled = [s for s in srcs if s.endswith((".c", ".cc"))]
    if not compiled:
        return
    tidy_reports(
        name = "tidy_reports",
        testonly = True,
        srcs = compiled,
        targets = [":" + r["name"] for r in native.existing_rules().values() if r["kind"] in CC_RULES],
    )
    py_test(
        name = "tidy_test",
        size = "small",
        srcs = ["//tools/style:tidy_main.py"],
        main = "//tools/style:tidy_main.py",
        args = ["check", "$(rootpaths :tidy_reports)"],
        data = [":tidy_reports"],
        tags = [
            "style",
            "tidy",
        ],
    )
