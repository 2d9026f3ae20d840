"""affected: the tests that a git diff affects, one label per line.

    ./bazel run //tools:affected -- origin/main
    ./bazel run //tools:affected -- --explain origin/main HEAD
    ./bazel run //tools:affected -- --repo ../other origin/main

Lists the files changed between BASE and HEAD (default HEAD) since they
parted (git diff BASE...HEAD, in the git repository DIR, by default the
checkout) and maps each one to tests with `bazel query` in the checkout:

  MODULE.bazel, .bazelrc, the pinned root's inputs and locks, the module
  stubs, any .bzl, a file a .bzl names with Label()   every test
  a BUILD file                     tests depending on any target of its package
  a file that is a target (a source, a goldens/ file)  tests depending on it
  a file gone, that no rule names  tests depending on any rule of its package
  a file no rule lists, or in no package               nothing

Tests tagged manual are left out, as `bazel test //...` leaves them out. The
queries see the checkout's files, so HEAD should be what is checked out.
Labels go to stdout, sorted; progress and --explain go to stderr:

    ./bazel run //tools:affected -- origin/main > affected.txt
    ./bazel test --target_pattern_file=affected.txt
"""

import os
import subprocess
import sys

from tools.affected import plan
from tools.bazel_cmd import bazel_cmd
from tools.entry import entry


def tests_of(expr):
    """The query for the tests of query set `expr` that `bazel test` would
    run: test_suites are left out before tests() (it would expand a suite that
    depends on one changed test into all of its tests), and so are tests
    tagged manual."""
    return f"let r = {expr} in let t = tests($r except kind(test_suite, $r)) in $t except " + bazel_cmd.has_tag(
        "manual", "$t"
    )


class AffectedError(Exception):
    pass


def git(repo, *args):
    # The checkout may belong to another user than the one Bazel runs as
    # (CI runs it with sudo); only read-only commands run here.
    try:
        return subprocess.run(["git", "-c", "safe.directory=*", "-C", repo, *args], capture_output=True, text=True)
    except FileNotFoundError:
        raise AffectedError(
            "git is not installed where this runs (the pinned root has it from toolchains/sysroot/manifest: is the root current?)"
        )


def commit(repo, role, rev):
    proc = git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", rev + "^{commit}")
    if proc.returncode != 0:
        raise AffectedError(
            f"{role} '{rev}' is not a commit of the git repository {repo}. Give a branch, tag or commit "
            "it has, e.g. origin/main (in a shallow clone, fetch it first: git fetch --unshallow)."
        )
    return proc.stdout.strip()


def changed_files(repo, base, head):
    """The Changes of base...head, paths relative to `repo` (the workspace root)."""
    proc = git(repo, "rev-parse", "--git-dir")
    if proc.returncode != 0:
        raise AffectedError(
            f"'{repo}' is not a git repository inside the pinned root (git: {proc.stderr.strip()}). Only the checkout "
            "and /var/cache/rocke are mounted there, so a git worktree whose repository lies elsewhere cannot be "
            "read: run this in a plain clone, or give --repo one."
        )
    base_sha, head_sha = commit(repo, "BASE", base), commit(repo, "HEAD", head)
    proc = git(repo, "diff", "--name-status", "--no-renames", "--relative", "-z", f"{base_sha}...{head_sha}")
    if proc.returncode != 0:
        raise AffectedError(
            f"git diff {base}...{head} failed in {repo}: {proc.stderr.strip()}. It needs the commit where HEAD "
            "parted from BASE: give commits that share history (in a shallow clone: git fetch --unshallow)."
        )
    fields = proc.stdout.split("\0")[:-1]
    return [plan.Change(status, path) for status, path in zip(fields[::2], fields[1::2])]


def bazel(ws, *args):
    return bazel_cmd.run(ws, args, AffectedError)


def query_labels(ws, expr):
    return sorted(line for line in bazel(ws, "query", "--output=label", expr).splitlines() if line)


def union(labels):
    return " + ".join(f'"{label}"' for label in labels)


def bzl_repo_inputs(ws):
    """{path: .bzl} for every file a .bzl of the checkout names with Label()."""
    found = {}
    for folder, dirs, files in os.walk(ws):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "bazel-")))
        for name in sorted(f for f in files if f.endswith(".bzl")):
            path = os.path.join(folder, name)
            with open(path, errors="replace") as f:
                for target, bzl in plan.repo_inputs(os.path.relpath(path, ws), f.read()).items():
                    found.setdefault(target, bzl)
    return found


def is_package(ws, folder):
    return any(os.path.isfile(os.path.join(ws, folder, build)) for build in plan.BUILD_FILES)


def workspace_facts(ws, changes):
    folders = {f for c in changes for f in plan.ancestors(c.path)}
    packages = frozenset(f for f in folders if is_package(ws, f))
    present = frozenset(c.path for c in changes if os.path.lexists(os.path.join(ws, c.path)))
    listed = plan.packages_to_list(changes, packages)
    targets = frozenset(query_labels(ws, union(plan.every_target(p) for p in listed))) if listed else frozenset()
    return plan.Workspace(packages, present, targets, bzl_repo_inputs(ws))


def explain(ws, decisions, tests, seeds):
    """Per changed file, on stderr: why, and which of `tests` it selected
    (from one rdeps graph of all `seeds`; none when every test is selected)."""
    nodes, dependents, rules = set(), {}, frozenset()
    if seeds:
        graph = bazel(ws, "query", "--output=graph", "--nograph:factored", f"rdeps(//..., {union(seeds)})")
        nodes, dependents = plan.parse_graph(graph)
        all_seeds = [s for s in seeds if s.endswith(":all")]
        if all_seeds:
            rules = frozenset(query_labels(ws, union(all_seeds)))
    for d in decisions:
        head = f"affected: {d.change.status} {d.change.path}: {d.reason}"
        if d.everything:
            print(f"{head} -> every test", file=sys.stderr)
        elif not d.seeds:
            print(f"{head} -> nothing", file=sys.stderr)
        else:
            mine = sorted(plan.reached(d.seeds, nodes, dependents, rules) & set(tests))
            print(f"{head} -> {len(mine)} test(s)", file=sys.stderr)
            for label in mine:
                print(f"    {label}", file=sys.stderr)


def affected(ws, repo, base, head, want_explain):
    """The sorted labels of the tests that base...head in `repo` affects."""
    changes = changed_files(repo, base, head)
    print(f"affected: {len(changes)} file(s) changed in {base}...{head}", file=sys.stderr)
    facts = workspace_facts(ws, changes)
    decisions = [plan.decide(c, facts) for c in changes]
    seeds = plan.seeds_of(decisions)
    if any(d.everything for d in decisions):
        tests = query_labels(ws, tests_of("//..."))
    elif seeds:
        tests = query_labels(ws, tests_of(f"rdeps(//..., {union(seeds)})"))
    else:
        tests = []
    if want_explain:
        explain(ws, decisions, tests, [] if any(d.everything for d in decisions) else seeds)
    return tests


def parser():
    p = entry.parser(prog="affected", description=__doc__)
    p.add_argument("--explain", action="store_true", help="say on stderr what each changed file selected, and why")
    p.add_argument("--repo", metavar="DIR", help="the git repository to diff (default: the checkout)")
    p.add_argument("base", metavar="BASE", help="the commit the changes start from, e.g. origin/main")
    p.add_argument("head", metavar="HEAD", nargs="?", default="HEAD", help="the commit they end at (default HEAD)")
    return p


def run(args):
    ws = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if not ws:
        print("affected: run me through Bazel: ./bazel run //tools:affected -- BASE [HEAD]", file=sys.stderr)
        return 2
    try:
        # A relative --repo is relative to where ./bazel was run from.
        repo = os.path.join(os.environ.get("BUILD_WORKING_DIRECTORY", ws), args.repo) if args.repo else ws
        tests = affected(ws, os.path.abspath(repo), args.base, args.head, args.explain)
    except AffectedError as e:
        print(f"affected: {e}", file=sys.stderr)
        return 2
    for label in tests:
        print(label)
    print(f"affected: {len(tests)} test(s)" if tests else "affected: no test is affected", file=sys.stderr)
    return 0


if __name__ == "__main__":
    entry.main(parser, run)
