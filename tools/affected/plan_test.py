"""plan: what each kind of changed file selects, from given workspace facts.

The end-to-end check (real git diffs, real bazel query) is
tools/checks/affected_check.sh."""

import re

import pytest

from tools.affected import plan

# A small workspace: the root package, //lib/conv, //goldens/lib/conv, //tools/cli.
PACKAGES = frozenset(["", "lib/conv", "goldens/lib/conv", "tools/cli"])
TARGETS = frozenset(
    [
        "//lib/conv:direct.py",
        "//lib/conv:conv",
        "//goldens/lib/conv:direct.llvm22.golden",
        "//tools/cli:setup.py",
    ]
)


def ws(present=(), repo_inputs=None):
    return plan.Workspace(PACKAGES, frozenset(present), TARGETS, repo_inputs or {})


def decide(status, path, **kw):
    """A change to `path`, which exists in the checkout unless deleted."""
    return plan.decide(plan.Change(status, path), ws([] if status == "D" else [path], **kw))


@pytest.mark.parametrize(
    "path",
    [
        "MODULE.bazel",
        ".bazelrc",
        "toolchains/sysroot/manifest",
        "toolchains/sysroot/build_root.sh",
        "toolchains/python/requirements.lock",
        "toolchains/llvm/llvmlite.lock",
        "toolchains/sysroot/stubs/zlib/MODULE.bazel",
        "defs.bzl",
        "lib/conv/deep/macro.bzl",
    ],
)
def test_global_files_select_everything(path):
    d = decide("M", path)
    assert d.everything and d.seeds == ()


def test_a_nested_module_file_is_an_ordinary_file():
    assert not decide("M", "lib/conv/MODULE.bazel").everything


def test_the_table_holds_every_input_of_the_pinned_roots_key():
    """root.sh hashes key_inputs into the root's key, which reaches every action."""
    with open("toolchains/sysroot/root.sh") as f:
        block = re.search(r"^key_inputs=\((.*?)^\)", f.read(), re.S | re.M).group(1)
    inputs = {
        line.strip().strip('"').replace("$here/", "toolchains/sysroot/").replace("$checkout/", "")
        for line in block.splitlines()
        if line.strip()
    }
    assert len(inputs) == 4
    assert inputs <= {pattern for pattern, _ in plan.EVERYTHING}


def test_a_file_a_bzl_names_with_label_selects_everything():
    text = 'setup = rctx.path(Label("//toolchains/llvm:setup.py"))\nflag = Label("@rocke//tools/cli:setup.py")'
    inputs = plan.repo_inputs("toolchains/llvm/extensions.bzl", text)
    assert inputs == {
        "toolchains/llvm/setup.py": "toolchains/llvm/extensions.bzl",
        "tools/cli/setup.py": "toolchains/llvm/extensions.bzl",
    }
    d = decide("M", "tools/cli/setup.py", repo_inputs=inputs)
    assert d.everything and "toolchains/llvm/extensions.bzl" in d.reason
    assert decide("M", "tools/cli/setup.py").seeds == ("//tools/cli:setup.py",)


def test_a_source_file_selects_its_label():
    d = decide("M", "lib/conv/direct.py")
    assert d.seeds == ("//lib/conv:direct.py",) and not d.everything


def test_a_golden_file_is_a_target_of_its_goldens_package():
    assert decide("M", "goldens/lib/conv/direct.llvm22.golden").seeds == ("//goldens/lib/conv:direct.llvm22.golden",)


def test_a_deleted_file_no_rule_names_selects_the_rules_of_its_package():
    """A glob of one of them may have matched it; its label is gone."""
    d = decide("D", "lib/conv/old.py")
    assert d.seeds == ("//lib/conv:all",) and "gone" in d.reason


def test_a_deleted_file_a_rule_still_names_selects_its_label():
    assert decide("D", "lib/conv/direct.py").seeds == ("//lib/conv:direct.py",)


def test_a_file_no_rule_lists_selects_nothing():
    d = decide("A", "lib/conv/notes.md")
    assert d.seeds == () and not d.everything and "no rule lists it" in d.reason


def test_a_file_in_no_package_selects_nothing():
    d = plan.decide(
        plan.Change("M", "README.md"), plan.Workspace(frozenset(["lib"]), frozenset(["README.md"]), TARGETS, {})
    )
    assert d.seeds == () and "no Bazel package" in d.reason


def test_a_changed_build_file_selects_its_package():
    assert decide("M", "lib/conv/BUILD.bazel").seeds == ("//lib/conv:*",)


def test_an_added_build_file_also_selects_the_package_it_splits_from():
    packages = PACKAGES | {"lib/conv/sub"}
    d = plan.decide(plan.Change("A", "lib/conv/sub/BUILD"), plan.Workspace(packages, frozenset(), TARGETS, {}))
    assert d.seeds == ("//lib/conv:*", "//lib/conv/sub:*")


def test_a_deleted_build_file_selects_the_package_that_takes_its_files():
    assert decide("D", "lib/conv/sub/BUILD.bazel").seeds == ("//lib/conv:*",)


def test_the_root_package_labels():
    assert plan.label("", "x.py") == "//:x.py"
    assert decide("M", "BUILD.bazel").seeds == ("//:*",)


def test_the_packages_of_files_other_than_build_files_are_listed():
    changes = [
        plan.Change("M", "lib/conv/direct.py"),
        plan.Change("D", "tools/cli/gone.py"),
        plan.Change("M", "goldens/lib/conv/BUILD.bazel"),
        plan.Change("M", "README.md"),
    ]
    assert plan.packages_to_list(changes, PACKAGES) == ["", "lib/conv", "tools/cli"]


def test_seeds_are_sorted_and_unique():
    decisions = [decide("M", "lib/conv/direct.py"), decide("D", "lib/conv/x.py"), decide("M", "lib/conv/direct.py")]
    assert plan.seeds_of(decisions) == ["//lib/conv:all", "//lib/conv:direct.py"]


GRAPH = """digraph mygraph {
  node [shape=box];
  "//lib/conv:direct_test"
  "//lib/conv:direct_test" -> "//lib/conv:conv"
  "//tools/cli:cli_test"
  "//tools/cli:cli_test" -> "//tools/cli:cli"
  "//tools/cli:cli" -> "//lib/conv:conv"
  "//lib/conv:conv"
  "//lib/conv:conv" -> "//lib/conv:direct.py"
  "//lib/conv:golden_test" -> "//goldens/lib/conv:goldens"
  "//goldens/lib/conv:goldens" -> "//goldens/lib/conv:a.golden"
  "//lib/conv:direct.py"
  "//goldens/lib/conv:a.golden"
}
"""


def test_reached_follows_dependents_transitively():
    nodes, dependents = plan.parse_graph(GRAPH)
    assert "//lib/conv:direct.py" in nodes and "digraph mygraph {" not in nodes
    assert plan.reached(("//lib/conv:direct.py",), nodes, dependents) == {
        "//lib/conv:direct.py",
        "//lib/conv:conv",
        "//lib/conv:direct_test",
        "//tools/cli:cli",
        "//tools/cli:cli_test",
    }
    assert plan.reached(("//goldens/lib/conv:a.golden",), nodes, dependents) == {
        "//goldens/lib/conv:a.golden",
        "//goldens/lib/conv:goldens",
        "//lib/conv:golden_test",
    }


def test_a_package_seed_stands_for_each_of_its_nodes():
    nodes, dependents = plan.parse_graph(GRAPH)
    assert plan.reached(("//tools/cli:*",), nodes, dependents) == {"//tools/cli:cli", "//tools/cli:cli_test"}


def test_an_all_seed_stands_for_the_rules_of_its_package():
    nodes, dependents = plan.parse_graph(GRAPH)
    rules = frozenset(["//goldens/lib/conv:goldens"])
    assert plan.reached(("//goldens/lib/conv:all",), nodes, dependents, rules) == {
        "//goldens/lib/conv:goldens",
        "//lib/conv:golden_test",
    }
