"""Which tests a changed file selects: the pure part of `affected`.

Every decision is made from facts gathered beforehand (the workspace's
packages, which changed files still exist, the targets of their packages),
so this module runs no git and no Bazel and is tested on its own.
"""

import collections
import fnmatch
import posixpath
import re
from dataclasses import dataclass

# Files that reach every target from outside the target graph: a change to one
# selects every test. fnmatch patterns over workspace paths ("*" crosses "/").
# The four root files are exactly root.sh's key_inputs (plan_test checks it).
EVERYTHING = (
    ("MODULE.bazel", "the module graph: every external repository and toolchain"),
    (".bazelrc", "flags of every Bazel command"),
    ("toolchains/sysroot/manifest", "the pinned root, whose key reaches every action"),
    ("toolchains/sysroot/build_root.sh", "the pinned root, whose key reaches every action"),
    ("toolchains/python/requirements.lock", "the pinned root, whose key reaches every action"),
    ("toolchains/llvm/llvmlite.lock", "the pinned root, whose key reaches every action"),
    ("toolchains/sysroot/root.sh", "how every command enters the pinned root (mounts, sandbox)"),
    ("bazel", "the entry point of every Bazel command"),
    ("tools/bazel", "the entry point of every Bazel command under bazelisk"),
    ("toolchains/sysroot/stubs/*", "the offline module stubs .bazelrc overrides modules with"),
    ("*.bzl", "Starlark: any target may come from a macro or rule"),
)

BUILD_FILES = ("BUILD.bazel", "BUILD")

# A file named in a .bzl by Label("//pkg:name") may be read by a repository
# rule (rctx.path), outside the target graph.
_LABEL_IN_BZL = re.compile(r'Label\(\s*"(?:@@?(?:rocke)?)?//([^":]*):([^"]+)"\s*\)')


@dataclass(frozen=True)
class Change:
    """One path of `git diff --name-status --no-renames`: a rename is D + A."""

    status: str
    path: str


@dataclass(frozen=True)
class Decision:
    """What one changed file selects: every test, the tests depending on
    `seeds` (labels, //pkg:* or //pkg:all patterns), or nothing (no seeds)."""

    change: Change
    reason: str
    seeds: tuple = ()
    everything: bool = False


@dataclass(frozen=True)
class Workspace:
    """Facts about the checkout the queries run in.

    packages: folders holding a BUILD file ("" is the root package), at least
      every ancestor folder of every changed path that is one.
    present: the changed paths that exist in the checkout.
    targets: the labels of every target (`bazel query //pkg:*`) of the
      packages that `packages_to_list` names.
    repo_inputs: path -> the .bzl naming it with Label(...).
    """

    packages: frozenset
    present: frozenset
    targets: frozenset
    repo_inputs: dict


def ancestors(path):
    """Folders that may hold the package of `path`, nearest first ("" last)."""
    folder = posixpath.dirname(path)
    while folder:
        yield folder
        folder = posixpath.dirname(folder)
    yield ""


def package_of(path, packages):
    return next((f for f in ancestors(path) if f in packages), None)


def label(package, path):
    """The label of the file `path` (a workspace path) in `package`."""
    return "//{}:{}".format(package, path[len(package) + 1 :] if package else path)


def every_target(package):
    """Rules, files and package groups: what a BUILD file change may touch."""
    return "//{}:*".format(package)


def every_rule(package):
    """The rules only: what a glob matching a deleted file may belong to."""
    return "//{}:all".format(package)


def repo_inputs(bzl_path, text):
    """{path: bzl_path} for each file `text` (a .bzl) names with Label("//pkg:name")."""
    return {posixpath.join(pkg, name): bzl_path for pkg, name in _LABEL_IN_BZL.findall(text)}


def _everything(path):
    return next((why for pattern, why in EVERYTHING if fnmatch.fnmatchcase(path, pattern)), None)


def packages_to_list(changes, ws_packages):
    """The packages whose targets `decide` needs: those of changed files other
    than BUILD files (a deleted file that a rule still names is a target)."""
    wanted = {package_of(c.path, ws_packages) for c in changes if posixpath.basename(c.path) not in BUILD_FILES}
    return sorted(p for p in wanted if p is not None)


def _build_file(change, ws):
    # An added or removed BUILD file also moves files into or out of the
    # enclosing package, whose globs change with them.
    folder = posixpath.dirname(change.path)
    pkgs = {package_of(change.path, ws.packages)}
    if change.status in ("A", "D") and folder:
        pkgs.add(package_of(folder, ws.packages))
    pkgs.discard(None)
    seeds = tuple(every_target(p) for p in sorted(pkgs))
    if not seeds:
        return Decision(change, "a BUILD file in no package")
    return Decision(change, "a BUILD file: every target of " + ", ".join(s[:-2] for s in seeds), seeds)


def decide(change, ws):
    """The Decision for one changed file."""
    path = change.path
    why = _everything(path)
    if why:
        return Decision(change, why, everything=True)
    if path in ws.repo_inputs:
        return Decision(
            change,
            "named by Label() in {}, read outside the target graph".format(ws.repo_inputs[path]),
            everything=True,
        )
    if posixpath.basename(path) in BUILD_FILES:
        return _build_file(change, ws)
    pkg = package_of(path, ws.packages)
    if pkg is None:
        return Decision(change, "in no Bazel package: no test can read it")
    if label(pkg, path) in ws.targets:
        return Decision(change, "a file of //" + pkg, (label(pkg, path),))
    if path not in ws.present:
        # Gone, and no rule names it: a glob of a rule of its package may have.
        return Decision(change, "gone, named by no rule: the rules of //" + pkg, (every_rule(pkg),))
    return Decision(change, "not a target of //{}: no rule lists it, so no test reads it".format(pkg))


def seeds_of(decisions):
    return sorted({s for d in decisions for s in d.seeds})


def parse_graph(text):
    """`bazel query --output=graph --nograph:factored` -> (every node,
    {label: the labels that depend on it directly})."""
    nodes, dependents = set(), collections.defaultdict(set)
    for line in text.splitlines():
        ends = [part.strip().strip('"') for part in line.split(" -> ")]
        if not ends[0].startswith(("//", "@")):
            continue
        nodes.update(ends)
        if len(ends) == 2:
            dependents[ends[1]].add(ends[0])
    return nodes, dependents


def _is_seed(node, seeds, rules):
    package = node.split(":")[0]
    return node in seeds or package + ":*" in seeds or (package + ":all" in seeds and node in rules)


def reached(seeds, nodes, dependents, rules=frozenset()):
    """Every node that is a seed or depends on one, transitively. A //pkg:*
    seed stands for every node of that package, a //pkg:all seed for those
    of its nodes in `rules` (the expansion of the :all seeds)."""
    todo = [n for n in nodes if _is_seed(n, seeds, rules)]
    seen = set(todo)
    while todo:
        for up in dependents.get(todo.pop(), ()):
            if up not in seen:
                seen.add(up)
                todo.append(up)
    return seen
