"""rocke_style_test: a package's sources against the one style configuration."""

load("@rules_python//python:defs.bzl", "py_test")

# The one configuration of each tool, at the top of the repository.
CONFIGS = ["//:ruff.toml", "//:mypy.ini", "//:.clang-format"]

def rocke_style_test(name = "style_test", exclude = []):
    """A test that fails on any style violation in this package's sources.

    Creates one target, `name`: a py_test (size small, tag style) running
    tools/style/style_main.py over this package's *.py files (ruff check,
    ruff format --check, mypy) and *.c, *.cc, *.h files (clang-format),
    each tool with its configuration in CONFIGS. A change to a package's
    sources re-runs only that package's style test.

    Args:
      name: the test's name.
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
