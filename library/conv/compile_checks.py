"""What the conv families' full-size and ISA tests share: the flavor under
test and the archs it knows, the layers, each arch's matrix instruction, the
compile that checks a kernel has no spill and fits the arch's registers, and
platform/isa's measure of a case's main loop. Imported by tests only
(//library/conv:compile_checks is testonly)."""

from conv import networks
from family.budget import overruns
from isa import analyze
from lower import flavors
from lower.llvm import lower
from toolchains.llvm.llvm import Toolchain

TC = Toolchain.current()
# Every ResNet-50 layer, the 3-D video layer and the acceptance layer.
LAYERS = {**networks.RESNET50, **networks.VIDEO, **networks.ACCEPTANCE}
# The matrix instruction the implicit-GEMM kernels of each tile arch run.
MATRIX_INSTRUCTION = {
    "gfx942": "v_mfma_f32_16x16x16",
    "gfx950": "v_mfma_f32_32x32x16",
    "gfx1201": "v_wmma_f32_16x16x16",
    "gfx1250": "v_wmma_f32_16x16x32",
}


def known(tiles):
    """The archs of a tile table the flavor under test knows (llvm20 does not know gfx1250)."""
    return [arch for arch in tiles if arch in flavors.get(TC.flavor).cpus]


def compiled(ir, arch, name):
    """The code object of the kernel `name`'s LLVM IR `ir`, compiled (parsed
    and verified first) and linked for `arch` by the flavor under test: no
    indirect call, no spill, within the arch's registers
    (platform/family/budget.py)."""
    built = TC.build(ir, arch, name)  # no indirect call
    assert not overruns(built.figures, arch), f"{name} with {TC.flavor}: " + "; ".join(overruns(built.figures, arch))
    assert built.code_object[:4] == b"\x7fELF", f"{name} with {TC.flavor}: the link made no ELF"
    return built.code_object


def code_object(kernel, arch):
    """`kernel` lowered by the flavor under test, then compiled(...)."""
    return compiled(lower(kernel, TC.flavor), arch, kernel.name)


def matrix_code(kernel, arch):
    """The disassembly of code_object(kernel, arch), which runs the arch's matrix instruction."""
    text = TC.disassemble(code_object(kernel, arch), arch)
    assert MATRIX_INSTRUCTION[arch] in text, f"{kernel.name} with {TC.flavor}: no {MATRIX_INSTRUCTION[arch]}"
    return text


def main_loop_report(family, case_id):
    """platform/isa's report of `family`'s case `case_id` with the flavor under test; it has a main loop."""
    case = {c.id: c for c in family.cases}[case_id]
    report = analyze.report(family.build(case), TC)
    assert report["main_loop"] is not None, f"no main loop found in {case_id} with {TC.flavor}"
    return report


def check_matrix_loop(report, arch, count):
    """The main loop runs `count` of the arch's matrix instruction and no other matrix op."""
    matrix = report["main_loop"]["matrix"]
    assert matrix["count"] == count and all(
        r["mnemonic"].startswith(MATRIX_INSTRUCTION[arch]) for r in matrix["by_mnemonic"]
    ), matrix


def check_global_loads(report, count):
    """The main loop's global loads are `count` per lane and iteration, all of 16 bytes."""
    loads = report["main_loop"]["global_loads"]
    assert loads["count"] == count and {r["bytes"] for r in loads["by_mnemonic"]} == {16}, loads


def check_no_spills_or_bank_conflicts(report):
    res = report["resources"]
    assert (res["vgpr_spill"], res["sgpr_spill"], res["scratch"]) == (0, 0, 0), res
    assert report["lds_banks"]["conflicted"] == 0, report["lds_banks"]


def check_cover(report, arch):
    """At least a quarter of the main loop's matrix ops issue between each global load and the wait that
    retires it (platform/isa/cover.py; tile.gemm.MATRIX_FIRST and PREFETCH_FIRST pin the loop's order)."""
    cover = report["main_loop"]["cover"]
    assert cover["of"] and 4 * cover["count"] >= cover["of"], f"{arch} with {TC.flavor}: cover {cover}"
