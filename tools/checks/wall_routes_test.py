"""wall_routes finds each route around visibility planted in a small tree,
names its file, and finds nothing in the same tree without it."""

import os

import pytest

from tools.checks import wall_routes

CLEAN = {
    "MODULE.bazel": 'tc = use_repo_rule("//toolchains/x:r.bzl", "r")\ntc(\n    name = "x",\n    files = ["//toolchains/x:a.txt"],\n)\n',
    "platform/x/BUILD.bazel": 'filegroup(name = "x")\n',
    "platform/x/tool.py": "import os\nprint(os.path.join(os.path.dirname(__file__), 'data'))\n",
    "platform/x/tool_test.py": "import sys\nsys.path.insert(0, 'here')\n",
    "library/x/BUILD.bazel": 'exports_files(["a.json"], visibility = ["//:library_users"])\n',
    "library/x/defs.bzl": 'visibility(["//library/..."])\n',
    ".bazelrc": "common --override_module=zlib=%workspace%/toolchains/sysroot/stubs/zlib\n",
}

PLANTED = {
    "label flag": ("platform/x/BUILD.bazel", 'label_flag(\n    name = "f",\n    build_setting_default = ":x",\n)\n'),
    "repository rule": (
        "MODULE.bazel",
        'tc = use_repo_rule("//toolchains/x:r.bzl", "r")\ntc(\n    name = "x",\n    files = ["//library/conv:a.json"],\n)\n',
    ),
    "local repository": (
        "MODULE.bazel",
        'nl = use_repo_rule("//platform/x:local.bzl", "new_local_repository")\nnl(\n    name = "lib",\n    path = "library",\n)\n',
    ),
    "bzl reading library": ("toolchains/x/r.bzl", 'def _impl(rctx):\n    rctx.read(Label("//library/conv:a.json"))\n'),
    "toolchain": ("MODULE.bazel", 'register_toolchains(\n    "//library/conv:tc",\n)\n'),
    "rc override": (".bazelrc", "common --override_repository=lib=%workspace%/library\n"),
    "rc toolchain": (".bazelrc", "build --extra_toolchains=//app/x:tc\n"),
    "sys.path": ("platform/x/tool.py", "import sys\nsys.path.insert(0, '/work/main/library')\n"),
    "PYTHONPATH": (
        "tools/x/run.py",
        "import os, subprocess\nsubprocess.run(['x'], env=dict(os.environ, PYTHONPATH='library'))\n",
    ),
    "public exports": ("library/x/BUILD.bazel", 'exports_files(["a.json"])\n'),
    "bzl without visibility": ("app/x/defs.bzl", "def m():\n    pass\n"),
}


def _tree(root, files, links=()):
    for path, text in files.items():
        os.makedirs(os.path.join(root, os.path.dirname(path)) or root, exist_ok=True)
        with open(os.path.join(root, path), "w") as f:
            f.write(text)
    for path, target in links:
        os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
        os.symlink(target, os.path.join(root, path))
    listing = [f"100644 0 0\t{p}" for p in files] + [f"120000 0 0\t{p}" for p, _ in links]
    return "\n".join(listing) + "\n"


def test_the_clean_tree_has_no_route(tmp_path):
    assert wall_routes.routes(str(tmp_path), _tree(tmp_path, CLEAN)) == []


@pytest.mark.parametrize("route", sorted(PLANTED))
def test_each_planted_route_is_found_naming_its_file(route, tmp_path):
    path, text = PLANTED[route]
    found = wall_routes.routes(str(tmp_path), _tree(tmp_path, {**CLEAN, path: text}))
    assert len(found) == 1 and found[0].startswith(path), found


def test_a_symlink_from_platform_into_the_library_is_found(tmp_path):
    listing = _tree(tmp_path, CLEAN, links=[("platform/x/conv", "../../library/x")])
    assert wall_routes.routes(str(tmp_path), listing) == [
        "platform/x/conv: a symlink into library/x, a higher floor; copy nothing across, depend on it from above"
    ]


def test_a_symlink_within_its_floor_is_allowed(tmp_path):
    assert wall_routes.routes(str(tmp_path), _tree(tmp_path, CLEAN, links=[("library/y", "x")])) == []
