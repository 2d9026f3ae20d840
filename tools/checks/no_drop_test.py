"""The decisions of tools/checks/no_drop.py, on inputs made to fail them."""

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


def test_registry_mismatch_both_ways():
    assert no_drop.registry_mismatch(("conv.a", "conv.b"), {"conv.b", "conv.c"}) == (["conv.a"], ["conv.c"])
    assert no_drop.registry_mismatch(("conv.a",), {"conv.a"}) == ([], [])


def test_identity_mismatch_follows_python_only_both_ways():
    modules = {("library/conv", "conv_x"): "conv.x", ("library/gemm", "gemm"): "gemm.gemm"}
    golden = {
        "//library/conv:conv_x_golden_llvm22",
        "//library/conv:conv_x_golden_llvm23",
        "//library/gemm:gemm_golden_llvm22",
    }
    identity = {"//library/conv:conv_x_byte_identity_llvm22"}
    registry = ("conv.x", "gemm.gemm")
    assert no_drop.identity_mismatch(modules, golden, identity, ("gemm.gemm",), registry) == [
        "//library/conv:conv_x_byte_identity_llvm23 is missing: give the rocke_family a cpp_engine, or list conv.x in PYTHON_ONLY"
    ]
    identity |= {"//library/conv:conv_x_byte_identity_llvm23", "//library/gemm:gemm_byte_identity_llvm22"}
    assert no_drop.identity_mismatch(modules, golden, identity, ("gemm.gemm", "conv.gone"), registry) == [
        "PYTHON_ONLY names conv.gone, which is not in FAMILIES",
        "//library/gemm:gemm_byte_identity_llvm22 exists, but PYTHON_ONLY lists gemm.gemm: drop it from PYTHON_ONLY",
    ]
    assert no_drop.identity_mismatch(modules, golden, identity, (), registry) == []


def test_a_package_with_sources_and_no_style_test_is_named():
    files = ["a/BUILD.bazel", "a/x.py", "b/BUILD.bazel", "b/y.cc", "b/data/z.py", "c/BUILD.bazel", "c/README.md"]
    assert no_drop.unstyled(["//a:style_test"], files) == ["//b"]
    assert no_drop.unstyled(["//a:style_test", "//b:style_test"], files) == []
