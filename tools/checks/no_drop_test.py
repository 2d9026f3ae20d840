"""The decisions of tools/checks/no_drop.py, on inputs made to fail them."""

import json

from lower.flavors import supporting

from tools.checks import no_drop


def test_missing_gates_names_each_absent_or_manual_test():
    families = {("library/conv", "conv_x"): {"llvm20", "llvm22"}}
    golden = {"//library/conv:conv_x_golden_llvm20", "//library/conv:conv_x_golden_llvm22"}
    validity = {"//library/conv:conv_x_validity_llvm22"}
    assert no_drop.missing_gates(families, golden, validity) == ["//library/conv:conv_x_validity_llvm20"]
    assert no_drop.missing_gates(families, golden, validity | {"//library/conv:conv_x_validity_llvm20"}) == []


def test_orphans_are_golden_files_no_live_golden_test_reads():
    golden = {"//library/conv:conv_x_golden_llvm22"}
    files = [
        "goldens/library/conv/BUILD.bazel",
        "goldens/library/conv/conv_x.llvm22.golden",
        "goldens/library/conv/conv_x.llvm22/case_gfx942.ll",
        "goldens/library/conv/conv_x.llvm20.golden",
        "goldens/library/conv/conv_y.llvm22/case_gfx942.ll",
        "goldens/library/conv/stray.txt",
    ]
    assert no_drop.orphans(files, golden) == [
        "goldens/library/conv/conv_x.llvm20.golden",
        "goldens/library/conv/conv_y.llvm22/case_gfx942.ll",
        "goldens/library/conv/stray.txt",
    ]


FAMILIES_XML = """<?xml version="1.1" encoding="UTF-8" standalone="no"?>
<query version="2">
    <rule class="_family_entry" location="/src/library/conv/BUILD.bazel:1:14" name="//library/conv:conv_x_family">
        <string name="name" value="conv_x_family"/>
        <string name="family" value="conv_x"/>
        <string name="module" value="conv.x"/>
        <string name="cpp_library" value="@@//library/conv/cpp:x"/>
    </rule>
    <rule class="_family_entry" location="/src/library/gemm/BUILD.bazel:1:14" name="//library/gemm:gemm_family">
        <string name="name" value="gemm_family"/>
        <string name="family" value="gemm"/>
        <string name="module" value="gemm.gemm"/>
        <string name="cpp_library" value=""/>
    </rule>
</query>
"""


def test_families_of_reads_each_entry_and_whether_it_has_a_cpp_library():
    assert no_drop.families_of(FAMILIES_XML) == {("library/conv", "conv_x"): True, ("library/gemm", "gemm"): False}


def test_identity_mismatch_follows_cpp_library_both_ways():
    families = {("library/conv", "conv_x"): True, ("library/gemm", "gemm"): False}
    golden = {
        "//library/conv:conv_x_golden_llvm22",
        "//library/conv:conv_x_golden_llvm23",
        "//library/gemm:gemm_golden_llvm22",
    }
    identity = {"//library/conv:conv_x_byte_identity_llvm22"}
    assert no_drop.identity_mismatch(families, golden, identity) == [
        "//library/conv:conv_x_byte_identity_llvm23 is missing, though its rocke_family has a cpp_library"
    ]
    identity |= {"//library/conv:conv_x_byte_identity_llvm23", "//library/gemm:gemm_byte_identity_llvm22"}
    assert no_drop.identity_mismatch(families, golden, identity) == [
        "//library/gemm:gemm_byte_identity_llvm22 exists, but its rocke_family has no cpp_library",
    ]
    identity -= {"//library/gemm:gemm_byte_identity_llvm22"}
    assert no_drop.identity_mismatch(families, golden, identity) == []


def test_claimed_flavors_come_from_the_built_case_list(tmp_path):
    (tmp_path / "library/conv").mkdir(parents=True)
    cases = {"cases": [{"arch": "gfx1250", "id": "a", "spec": {}}], "family": "conv_x", "format": 1}
    (tmp_path / "library/conv/conv_x.cases.json").write_text(json.dumps(cases))
    claimed = no_drop.claimed({("library/conv", "conv_x"): True}, str(tmp_path))
    assert claimed == {("library/conv", "conv_x"): set(supporting("gfx1250"))}
    assert "llvm20" not in claimed[("library/conv", "conv_x")]  # llvm20 knows no gfx1250


def test_a_family_with_a_cpp_engine_and_no_engines_test_is_named():
    families = {("library/conv", "conv_x"): True, ("library/gemm", "gemm"): True}
    engines = {"//library/gemm:gemm_engines"}
    assert no_drop.engines_missing(families, engines) == ["//library/conv:conv_x_engines"]
    assert no_drop.engines_missing({**families, ("library/conv", "conv_x"): False}, engines) == []
    assert no_drop.engines_missing(families, engines | {"//library/conv:conv_x_engines"}) == []


def test_a_package_with_sources_and_no_style_test_is_named():
    files = ["a/BUILD.bazel", "a/x.py", "b/BUILD.bazel", "b/y.cc", "b/data/z.py", "c/BUILD.bazel", "c/README.md"]
    assert no_drop.unstyled(["//a:style_test"], files) == ["//b"]
    assert no_drop.unstyled(["//a:style_test", "//b:style_test"], files) == []
