"""The tag pattern selects exactly the tag, as Bazel's attr() sees a tag list."""

import re

from tools.bazel_cmd import bazel_cmd


def _pattern(tag):
    return re.fullmatch(r'attr\(tags, "(.*)", X\)', bazel_cmd.has_tag(tag, "X")).group(1)


def test_has_tag_matches_the_tag_alone_anywhere_in_the_list():
    pattern = _pattern("golden")
    for tags in ("[golden]", "[flavor=llvm22, golden]", "[golden, numeric]", "[a, golden, b]"):
        assert re.search(pattern, tags), tags
    for tags in ("[golden_extra]", "[not_golden]", "[goldens, x]", "[]"):
        assert not re.search(pattern, tags), tags


def test_run_raises_the_given_error_with_the_command_and_status(tmp_path):
    fake = tmp_path / "bazel"
    fake.write_text("#!/bin/sh\necho 'no such target' >&2\nexit 7\n")
    fake.chmod(0o755)

    class Failed(Exception):
        pass

    try:
        bazel_cmd.run(str(tmp_path), ["query", "//x"], Failed)
    except Failed as e:
        assert str(e) == "bazel query //x failed (exit 7):\nno such target\n"
    else:
        raise AssertionError("expected Failed")
