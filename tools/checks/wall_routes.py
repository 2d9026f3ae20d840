"""The routes across the walls that Bazel's visibility does not check.

Dependencies run one way: the top floor (app/, the //tools aliases) ->
library (library/, catalog/) -> platform (platform/, toolchains/, tools/).
Bazel refuses a lower floor's target that names a higher floor's target,
exported file, config_setting or .bzl (tools/layering_probe and
library/layering_probe prove it). These routes it does not see:

  label flags     a label_flag or label_setting: Bazel checks no visibility
                  on the label a flag is set to (--//pkg:flag=//library:x)
  repositories    a repository rule or extension of a lower floor reading a
                  higher floor's files (rctx.read(Label("//library/...")),
                  new_local_repository(path = "library")) into a public repo
  toolchains      a toolchain or execution platform registered from a
                  higher floor: toolchain resolution checks no visibility
  overrides       --override_repository / --override_module pointing into a
                  higher floor's folder
  sys.path        a lower floor's program that edits sys.path or PYTHONPATH
                  to import code it does not depend on (under `bazel run`
                  nothing hides the checkout; tests run in the hermetic
                  sandbox, //tools/layering_probe:library_unreadable_test)
  symlinks        a tracked symlink in a lower floor pointing into a higher one
  exports         exports_files() without visibility on a higher floor (its
                  files become public) and a higher floor's .bzl without a
                  visibility() declaration (any package could load it)

    git ls-files -s | python3 tools/checks/wall_routes.py CHECKOUT

reads the checkout's files (as `git ls-files -s` lists them) on stdin. Prints one line per route found, "FILE:LINE: what, and the fix"; exit
status 1 if any, 0 if none.
"""

import ast
import os
import re
import sys

# Each floor's top-level folders, lowest first. tools/ is the platform
# team's; its root package (//tools, aliases only) is on the top floor.
FLOORS = (("platform", ("platform", "toolchains", "tools")), ("library", ("library", "catalog")), ("app", ("app",)))
LEVEL = {folder: level for level, (_, folders) in enumerate(FLOORS) for folder in folders}
HIGHER = {level: tuple(f for f, lv in LEVEL.items() if lv > level) for level in range(len(FLOORS))}

SETTING = re.compile(r"^\s*(label_flag|label_setting)\s*\(", re.M)
CALL = re.compile(r"^(\w+)\s*=\s*(use_repo_rule|use_extension)\(\s*\"([^\"]+)\"", re.M)
REGISTER = re.compile(r"(register_toolchains|register_execution_platforms)\(")
FLAGS = re.compile(
    r"--(extra_toolchains|extra_execution_platforms|override_repository|override_module|platforms)[= ](\S+)"
)


def _level(path):
    """The floor of a checkout-relative path (the //tools package itself is the top floor's)."""
    top = path.split("/", 1)[0]
    if path.startswith("tools/") and "/" not in path[len("tools/") :]:
        return len(FLOORS) - 1 if os.path.basename(path).startswith("BUILD") else LEVEL["tools"]
    return LEVEL.get(top)


def _names_higher(text, level):
    """The higher floors' folders `text` names as labels or paths."""
    found = []
    for folder in HIGHER[level]:
        if re.search(rf'(^|[\s"=,]|@@?\w*)//{folder}\b|path\s*=\s*"{folder}\b|%workspace%/{folder}\b', text):
            found.append(folder)
    return found


def _files(listing):
    """(mode, path) of each line of `git ls-files -s`."""
    for line in listing.splitlines():
        mode, _, _, path = line.split(None, 3)
        yield mode, path


def _read(root, path):
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        return f.read()


def _call_args(text, start):
    """The text of a call's arguments, from just after its "(" to its ")"."""
    depth = 1
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[start:i]
    return text[start:]


def _line(text, index):
    return text.count("\n", 0, index) + 1


def label_settings(root, path, text):
    for m in SETTING.finditer(text):
        yield f"{path}:{_line(text, m.start())}: a {m.group(1)}: Bazel checks no visibility on the label it is set to; use a plain dependency"


def repositories(root, path, text):
    level = _level(path)
    if path.endswith(".bzl") and level is not None:
        for folder in _names_higher(text, level):
            yield f"{path}: a .bzl of the {FLOORS[level][0]} floor names {folder}/; a repository rule here could read it into a public repository"
    if path != "MODULE.bazel":
        return
    # Each repository rule or extension called here runs with its .bzl's floor.
    floors = {name: _level(bzl.lstrip("/").replace(":", "/")) for name, _, bzl in CALL.findall(text)}
    for m in re.finditer(r"^(\w+)(?:\.\w+)?\(", text, re.M):
        level = floors.get(m.group(1))
        if level is None:
            continue
        for folder in _names_higher(_call_args(text, m.end()), level):
            yield f"{path}:{_line(text, m.start())}: {m.group(1)} (a rule of the {FLOORS[level][0]} floor) reads {folder}/; move the rule to the floor whose files it reads"
    for m in REGISTER.finditer(text):
        for folder in _names_higher(_call_args(text, m.end()), 0):
            yield f"{path}:{_line(text, m.start())}: {m.group(1)} names {folder}/: toolchain resolution checks no visibility; register only platform and toolchains targets"


def flags(root, path, text):
    if not (path == ".bazelrc" or path.endswith("/.bazelrc") or path.endswith("bazelrc")):
        return
    for m in FLAGS.finditer(text):
        for folder in _names_higher(m.group(2), 0):
            yield f"{path}:{_line(text, m.start())}: --{m.group(1)} names {folder}/, which no visibility check covers; drop it"


def _edits_path(node):
    """Whether an AST node edits sys.path or sets PYTHONPATH."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        target = node.func.value
        if node.func.attr in ("insert", "append", "extend") and ast.unparse(target) == "sys.path":
            return True
        if ast.unparse(node.func) == "os.environ.update" or ast.unparse(node.func).endswith("putenv"):
            return any("PYTHONPATH" in ast.unparse(a) for a in node.args + [k.value for k in node.keywords])
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(
            ast.unparse(t) in ("sys.path", "os.environ['PYTHONPATH']", 'os.environ["PYTHONPATH"]') for t in targets
        )
    if isinstance(node, ast.keyword) and node.arg == "PYTHONPATH":
        return True
    if isinstance(node, ast.Dict):
        return any(isinstance(k, ast.Constant) and k.value == "PYTHONPATH" for k in node.keys)
    return False


def sys_path(root, path, text):
    if (
        not path.endswith(".py")
        or _level(path) != 0
        or path.endswith("_test.py")
        or path.startswith(("tools/checks/", "tools/layering_probe/"))
    ):
        return
    try:
        tree = ast.parse(text)
    except SyntaxError as e:
        yield f"{path}:{e.lineno}: cannot parse ({e.msg}), so its sys.path edits cannot be checked"
        return
    for node in ast.walk(tree):
        if _edits_path(node):
            yield f"{path}:{node.lineno}: edits sys.path or PYTHONPATH; a platform program imports only what it depends on"


def exports(root, path, text):
    level = _level(path)
    if level is None or level == 0:
        return
    if os.path.basename(path) in ("BUILD", "BUILD.bazel"):
        for m in re.finditer(r"^exports_files\(", text, re.M):
            if "visibility" not in _call_args(text, m.end()):
                yield f'{path}:{_line(text, m.start())}: exports_files() without visibility makes the files public; add visibility = ["//:library_users"] or narrower'
    if path.endswith(".bzl") and not re.search(r"^visibility\(", text, re.M):
        yield f"{path}: a .bzl of the {FLOORS[level][0]} floor without visibility(): any package could load it; declare who may"


CHECKS = (label_settings, repositories, flags, sys_path, exports)


def routes(root, listing):
    """Every route found in the checkout at `root`, whose files `listing`
    (`git ls-files -s`) lists, as "FILE:LINE: ..." lines."""
    found = []
    for mode, path in _files(listing):
        if mode == "120000":
            target = os.path.normpath(os.path.join(os.path.dirname(path), os.readlink(os.path.join(root, path))))
            here, there = _level(path), _level(target)
            if here is not None and there is not None and there > here:
                found.append(
                    f"{path}: a symlink into {target}, a higher floor; copy nothing across, depend on it from above"
                )
            continue
        if not os.path.isfile(os.path.join(root, path)):
            continue
        text = _read(root, path)
        for check in CHECKS:
            found += check(root, path, text)
    return found


def main(argv):
    if len(argv) != 2:
        print("usage: git ls-files -s | wall_routes.py CHECKOUT", file=sys.stderr)
        return 2
    found = routes(argv[1], sys.stdin.read())
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
