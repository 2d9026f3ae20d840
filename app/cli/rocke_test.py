"""The rocke command line, run as a user runs it: toolchains, usage errors,
and families outside the registry refused with what it offers."""

import re

import pytest
import rocke_families

from lower.flavors import FLAVORS
from app.cli import rocke


def test_toolchains_lists_all_four_with_versions_and_sources(capsys):
    assert rocke.main(["toolchains"]) == 0
    out = capsys.readouterr().out
    for flavor, version in [("llvm20", "20.1.8"), ("llvm22", "22.1.8"), ("llvm23", "23.1.4"), ("llvm24", "24.0.0")]:
        assert (
            f"{flavor}{' (default)' if flavor == 'llvm23' else ''}\n  version    {version} (reported by the tool)"
            in out
        )
    assert "source     PyPI wheel llvmlite==0.47.0" in out
    assert "source     Debian package llvm-23 1:23.1.4-2 (sid)" in out
    assert (
        "linker     lld 22 in this process; /usr/lib/llvm-22/bin/ld.lld for the words of a failed link"
        in out.split("llvm22")[0]
    )


def test_one_toolchain_is_the_default_and_commands_use_it(capsys):
    assert rocke.main(["toolchains", "--no-probe"]) == 0
    marked = re.findall(r"^(llvm\d+) \(default\)$", capsys.readouterr().out, re.M)
    assert marked == ["llvm23"]  # DEFAULT_LLVM_VERSION of toolchains/llvm/flavors.bzl
    assert rocke.main(["emit", "gemm", "--case", "gemm_f16_128x128x32_gfx942"]) == 0
    assert ", lowered for llvm23" in capsys.readouterr().out.splitlines()[0]


def test_toolchains_lists_exactly_the_cpus_the_lowering_accepts(capsys):
    assert rocke.main(["toolchains", "--no-probe"]) == 0
    printed = dict(
        re.findall(r"^(llvm\d+)(?: \(default\))?\n(?:  .*\n)*?  cpus       (.*)$", capsys.readouterr().out, re.M)
    )
    assert set(printed) == set(FLAVORS)
    for name, flavor in FLAVORS.items():
        assert printed[name].split(", ") == list(flavor.cpus), name
    # gfx1151 is lowered for every flavor, so it must be listed for every flavor.
    assert all("gfx1151" in cpus for cpus in printed.values())


def test_unknown_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as err:
        rocke.main(["toolchain"])
    assert err.value.code == 2
    assert "invalid choice: 'toolchain'" in capsys.readouterr().err


def test_a_family_outside_the_registry_is_refused_with_what_it_offers(capsys):
    assert rocke.main(["emit", "no.such.family", "--list"]) == 2
    err = capsys.readouterr().err
    offered = ", ".join(rocke_families.FAMILIES)
    assert (
        err == f"rocke emit: expected a family of the registry, got 'no.such.family'; the registry offers: {offered}.\n"
    )


def test_isa_refuses_a_family_outside_the_registry_in_one_line(capsys):
    assert rocke.main(["isa", "no.such.family", "--case", "x"]) == 2
    err = capsys.readouterr().err
    offered = ", ".join(rocke_families.FAMILIES)
    assert (
        err == f"rocke isa: expected a family of the registry, got 'no.such.family'; the registry offers: {offered}.\n"
    )


def test_a_flavor_without_a_toolchain_is_refused_naming_the_ones_there_are():
    from app.cli import inputs

    with pytest.raises(inputs.Refused) as e:
        inputs.toolchain_for("llvm99")
    assert str(e.value) == (
        f"expected the llvm99 toolchain among this program's, got only: {', '.join(sorted(FLAVORS))}; "
        "run it through ./bazel run //tools:rocke, which gives it all four"
    )
