"""Toolchain setup (setup.py) against the real tools of the pinned root."""

import json
import os

import pytest

from toolchains.llvm import setup

FLAVORS = json.loads(os.environ["ROCKE_LLVM_FLAVORS"])


def read(path):
    with open(path) as f:
        return f.read()


@pytest.mark.parametrize("flavor", sorted(FLAVORS))
def test_each_declared_version_is_what_the_tool_reports(flavor):
    assert setup.check_version(flavor, FLAVORS[flavor]) == FLAVORS[flavor]["version"]


def test_unexpected_version_names_expected_and_found():
    wrong = dict(FLAVORS["22"], version="23.1.4")
    with pytest.raises(setup.SetupError) as err:
        setup.check_version("22", wrong)
    assert "expected LLVM 23.1.4, found 22.1.8" in str(err.value)


def test_setup_exits_1_with_the_message(capsys, tmp_path):
    # A root marker's first line; the running root's own is outside the test sandbox.
    stamp = tmp_path / "rocke-root"
    stamp.write_text("key 0123456789abcdef\n")
    wrong = dict(FLAVORS["20"], version="20.1.7")
    status = setup.main(
        [
            "--flavor",
            "20",
            "--facts",
            json.dumps(wrong),
            "--manifest",
            "toolchains/sysroot/manifest",
            "--llvmlite-lock",
            "toolchains/llvm/llvmlite.lock",
            "--root-stamp",
            str(stamp),
        ]
    )
    assert status == 1
    assert "llvm20: expected LLVM 20.1.7, found 20.1.8" in capsys.readouterr().err


def test_missing_tool_is_a_setup_error():
    with pytest.raises(setup.SetupError, match="cannot run /nonexistent/llc"):
        setup.check_version("22", dict(FLAVORS["22"], bin="/nonexistent"))


def test_sources_name_package_or_wheel_with_version():
    manifest, lock = read("toolchains/sysroot/manifest"), read("toolchains/llvm/llvmlite.lock")
    assert setup.source(FLAVORS["22"], manifest, lock) == "Debian package llvm-22 1:22.1.8-3 (sid)"
    assert setup.source(FLAVORS["24"], manifest, lock).startswith("Debian package llvm-24 1:24~++")
    assert setup.source(FLAVORS["20"], manifest, lock) == "PyPI wheel llvmlite==0.47.0"


def test_each_llc_flavor_names_its_shared_library():
    for flavor, facts in sorted(FLAVORS.items()):
        if facts["kind"] == "llc":
            assert setup.check_library(flavor, facts) == facts["library"]


def test_missing_library_is_a_setup_error():
    with pytest.raises(setup.SetupError, match="expected the shared library /nonexistent/libLLVM.so"):
        setup.check_library("22", dict(FLAVORS["22"], library="/nonexistent/libLLVM.so"))
