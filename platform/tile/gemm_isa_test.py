"""The 128x128x32 tiles through each flavor's real LLVM, measured by
platform/isa: per main-loop iteration 4 sixteen-byte global loads, one
branch, no exec writes and one vmcnt(0) wait, after at least a quarter of
the loop's matrix ops (latency cover); every fragment one 16-byte LDS
read (or two transposed 8-byte reads); on gfx950 direct loads to LDS instead
of LDS writes, waited for before the loop's barrier, with lane offsets
computed before the loop (at most one vector instruction per LDS read); no
spills, no modelled bank conflicts; vector epilogue stores, and edge stores
one range-checked buffer store per element. (The figures beside Triton's are
tools/bench/tile_bench.py's.)"""

import re

import pytest

from arch import arch as archs
from arch import occupancy
from arch.lds_ops import LDS_OPS
from isa import analyze, counts, loops, objdump
from lower import flavors
from lower.llvm import lower
from tile.gemm import MATRIX_FIRST, PREFETCH_FIRST, QUARTER_COVER
from tile.gemm_example import TILES_128, gemm_kernel
from toolchains.llvm.llvm import Toolchain

TC = Toolchain.current()
KNOWN = sorted(a for a in TILES_128 if a in flavors.get(TC.flavor).cpus)
# The tile archs whose fast loop loads straight to LDS (gemm._direct): the
# loads are buffer_load_dwordx4 ... lds, the tiles double-buffered.
DIRECT = [a for a in KNOWN if a in LDS_OPS["buffer.load_to_lds"].archs]
# The tile archs whose register-path main loop pins its prefetch (gemm.PREFETCH_FIRST, gemm.MATRIX_FIRST).
PINNED = [a for a in KNOWN if archs.get(a).generation in PREFETCH_FIRST + MATRIX_FIRST and a not in DIRECT]
# The 128x128x32 f16 tiles' LDS: A and B, 8 KiB each; on gfx950 twice over
# (two buffers a tile, for the direct loads).
LDS_BYTES = {"gfx942": 16384, "gfx950": 2 * 16384, "gfx1201": 16384, "gfx1250": 16384}
# LDS fragment reads per iteration, by bytes per lane: one 16-byte read per A
# and B fragment of a wave per k step (gfx942 reads two mma k steps'
# fragments at once): A tiles + B tiles of the wave; on gfx950 each B
# fragment is two 8-byte transposed reads (ds_read_b64_tr_b16).
FRAGMENT_READS = {
    "gfx942": {16: 4 + 4},
    "gfx950": {16: 2 * 2, 8: 2 * 2 * 2},
    "gfx1201": {16: 4 * 2 + 2 * 2},
    "gfx1250": {16: 4 * 2 + 2 * 2},
}
# Epilogue vector stores per lane where the block is inside: one per run of
# consecutive columns (4 f16 on gfx9, 8 on gfx12).
WIDE_STORES = {"gfx942": 16, "gfx950": 16, "gfx1201": 8, "gfx1250": 8}
# Buffer stores per lane where the block is at an edge: one per accumulator
# element, the tile's 128 x 128 outputs over its 256 lanes (every arch).
EDGE_STORES = 128 * 128 // 256


def test_the_flavor_knows_some_tile_arch():
    assert KNOWN, f"{TC.flavor} knows none of {sorted(TILES_128)}"
    assert PINNED, f"{TC.flavor} knows no tile arch of {PREFETCH_FIRST + MATRIX_FIRST}"


@pytest.fixture(scope="module", params=KNOWN)
def measured(request):
    arch = request.param
    kernel, _ = gemm_kernel(arch, "f16", TILES_128[arch]("f16"))
    report = analyze.report(kernel, TC)
    assert report["main_loop"] is not None, f"no main loop found in the {arch} tile with {TC.flavor}"
    return arch, kernel, report


def rows(kind):
    return [(r["mnemonic"], r["count"], r["bytes"]) for r in kind["by_mnemonic"]]


def is_direct(inst):
    """A load straight to LDS: buffer_load_dwordx4 with the lds modifier."""
    return inst.mnemonic == "buffer_load_dwordx4" and inst.operands.split()[-1] == "lds"


def main_loop(arch):
    """The f16 tile's main loop instructions, compiled for `arch` by this flavor."""
    kernel, _ = gemm_kernel(arch, "f16", TILES_128[arch]("f16"))
    compiled = TC.compile(lower(kernel, TC.flavor), arch)
    return loops.main_loop(
        objdump.parse(TC.disassemble(TC.link(compiled.obj), arch))[kernel.name], counts.kind
    ).instructions


def vgprs(operand):
    """The VGPRs an operand names: vN or v[a:b]."""
    one = re.fullmatch(r"v(\d+)", operand)
    if one:
        return {int(one.group(1))}
    span = re.fullmatch(r"v\[(\d+):(\d+)\]", operand)
    return set(range(int(span.group(1)), int(span.group(2)) + 1)) if span else set()


def test_main_loop_issues_four_16_byte_loads_and_one_branch(measured):
    arch, _, report = measured
    loop = report["main_loop"]
    assert loop["global_loads"]["count"] == 4 and {b for _, _, b in rows(loop["global_loads"])} == {16}, rows(
        loop["global_loads"]
    )
    assert loop["branches"] == 1 and loop["exec_writes"] == 0, (loop["branches"], loop["exec_writes"])
    # The one wait is before the LDS writes (on gfx12 only because the loop's
    # barriers order LDS alone: gemm.PREFETCH_FIRST), or, with direct loads,
    # before the loop's one barrier.
    assert loop["waits"]["vmcnt0"] == 1, loop["waits"]


def test_direct_loads_replace_the_lds_writes_where_the_arch_has_them(measured):
    # gfx950: the loop's global loads are buffer_load_dwordx4 ... lds (counted
    # as global loads of 16 bytes), it writes no LDS itself, and its one
    # barrier both frees the buffer it read and hands over the one loaded.
    arch, _, report = measured
    loop = report["main_loop"]
    mnemonics = {m for m, _, _ in rows(loop["global_loads"])}
    if arch in DIRECT:
        assert mnemonics == {"buffer_load_dwordx4"}, rows(loop["global_loads"])
        assert (loop["lds_writes"]["count"], loop["barriers"]) == (0, 1), (rows(loop["lds_writes"]), loop["barriers"])
    else:
        assert not any("lds" in m for m in mnemonics) and loop["lds_writes"]["count"] > 0, rows(loop["global_loads"])


def test_lds_use_and_that_it_does_not_limit_occupancy(measured):
    # Two buffers per tile double the LDS with direct loads; the VGPRs, not
    # the LDS, still set the occupancy (as if the kernel used almost none).
    arch, _, report = measured
    res = report["resources"]
    assert res["lds"] == LDS_BYTES[arch], res
    unlimited = occupancy.waves_per_simd(
        arch, TC.flavor, res["wave_size"], res["vgpr"], res["sgpr"], 1, res["workgroup_size"]
    )
    assert res["occupancy"] == unlimited, (res, unlimited)


@pytest.mark.parametrize("arch", PINNED)
def test_where_the_loop_pins_its_prefetch_the_loads_issue_before_the_matrix_work(arch):
    # On gemm.PREFETCH_FIRST's and gemm.MATRIX_FIRST's generations, every
    # global load of the main loop (a single block, run from its header)
    # comes before its first matrix instruction.
    kernel, _ = gemm_kernel(arch, "f16", TILES_128[arch]("f16"))
    compiled = TC.compile(lower(kernel, TC.flavor), arch)
    insts = objdump.parse(TC.disassemble(TC.link(compiled.obj), arch))[kernel.name]
    loop = loops.main_loop(insts, counts.kind)
    order = [i.mnemonic for i in loop.instructions]
    first_matrix = next(n for n, m in enumerate(order) if counts.is_matrix(m))
    late = [m for m in order[first_matrix:] if m.startswith("global_load")]
    assert not late, f"{arch}: {len(late)} global loads after the first matrix instruction of the main loop"


@pytest.mark.parametrize("arch", [a for a in KNOWN if a in QUARTER_COVER])
def test_every_global_load_has_a_quarter_of_the_matrix_ops_to_cover_it(arch):
    # Latency cover (platform/isa/cover.py): at least a quarter of the loop's
    # matrix ops issue between each global load and the wait that retires it.
    # The register path pins the loads and the matrix work (gemm.MATRIX_FIRST,
    # gemm.PREFETCH_FIRST); gfx950's direct loads issue after 3 to 5 of its 8.
    kernel, _ = gemm_kernel(arch, "f16", TILES_128[arch]("f16"))
    cover = analyze.report(kernel, TC)["main_loop"]["cover"]
    assert cover["of"] and 4 * cover["count"] >= cover["of"], f"{arch}: cover {cover['count']} of {cover['of']}"


def test_every_fragment_is_one_16_byte_read_or_two_transposed_8_byte_reads(measured):
    arch, _, report = measured
    by_width = {}
    for _, count, width in rows(report["main_loop"]["lds_reads"]):
        by_width[width] = by_width.get(width, 0) + count
    assert by_width == FRAGMENT_READS[arch], rows(report["main_loop"]["lds_reads"])


def test_no_spills_and_no_modelled_bank_conflicts(measured):
    _, _, report = measured
    res = report["resources"]
    assert (res["vgpr_spill"], res["sgpr_spill"], res["scratch"]) == (0, 0, 0), res
    assert report["lds_banks"]["conflicted"] == 0


@pytest.fixture(scope="module")
def instructions(measured):
    arch, kernel, _ = measured
    compiled = TC.compile(lower(kernel, TC.flavor), arch)
    return arch, objdump.parse(TC.disassemble(TC.link(compiled.obj), arch))[kernel.name]


def test_epilogue_stores_vectors(instructions):
    arch, insts = instructions
    wide = [i.mnemonic for i in insts if i.mnemonic.startswith("global_store") and counts.width(i.mnemonic) >= 8]
    assert len(wide) == WIDE_STORES[arch], wide


@pytest.mark.parametrize("arch", DIRECT)
def test_the_direct_loads_are_waited_for_before_the_loops_barrier(arch):
    # Past the barrier another wave reads what this wave's direct loads
    # wrote, so the loads must be complete before it: the lowering starts
    # the barrier with s_waitcnt vmcnt(0) (lds_ops.json's barrier_wait; LLVM
    # 20 alone placed its wait after the barrier, at the next reads, which
    # wait for the wave's own loads only).
    loop = main_loop(arch)
    last_load = max(n for n, i in enumerate(loop) if is_direct(i))
    barrier = next(n for n, i in enumerate(loop) if n > last_load and i.mnemonic == "s_barrier")
    waits = [i.operands for i in loop[last_load:barrier] if i.mnemonic == "s_waitcnt"]
    assert any("vmcnt(0)" in w for w in waits), (waits, [i.mnemonic for i in loop])


@pytest.mark.parametrize("arch", DIRECT)
def test_the_direct_loads_take_their_lane_offsets_as_computed_before_the_loop(arch):
    # A direct load's address is the lane's offset inside the tile, the same
    # for every tile (copy.DirectCopy.lanes), plus the tile's origin, a
    # scalar: so no vector instruction of the loop writes a register a
    # direct load takes its address from, and the loop's only vector
    # arithmetic besides the matrix ops is the LDS reads' addresses (each at
    # most one instruction: the buffer's scalar offset added to the lane's).
    # Per-lane 64-bit global addresses (global_load_lds_dwordx4) cost 3 to 5
    # vector instructions a load, every iteration.
    loop = main_loop(arch)
    vector = [i for i in loop if i.mnemonic.startswith("v_") and not counts.is_matrix(i.mnemonic)]
    reads = [i for i in loop if i.mnemonic.startswith("ds_read")]
    assert len(vector) <= len(reads), (
        f"{arch}: {len(vector)} vector instructions for {len(reads)} LDS reads: {[i.mnemonic for i in vector]}"
    )
    direct = [i for i in loop if is_direct(i)]
    assert len(direct) == 4, [i.mnemonic for i in loop]
    written = set().union(*(vgprs(i.operands.split(",")[0].strip()) for i in vector))
    addresses = set().union(*(vgprs(i.operands.split(",")[0].strip()) for i in direct))
    assert not written & addresses, (
        f"{arch}: the loop computes direct-load addresses in v{sorted(written & addresses)}: {[(i.mnemonic, i.operands) for i in vector]}"
    )


def test_edge_epilogue_is_one_buffer_store_per_element_without_waterfall_loops(instructions):
    """The edge block's stores (gemm.epilogue's `buffered`): one buffer store
    per accumulator element, its resource in scalar registers. A resource
    LLVM builds in vector registers makes each store a loop over the
    distinct resources (v_readfirstlane, exec masks, a branch back): no
    loop of the kernel may hold a buffer store. (A v_readfirstlane alone is
    no sign: gfx950's direct loads take their uniform LDS base in M0 by one.)"""
    arch, insts = instructions
    stores = [i.mnemonic for i in insts if i.mnemonic.startswith("buffer_store")]
    assert len(stores) == EDGE_STORES, stores
    looped = [
        lp.header for lp in loops.loops(insts) if any(i.mnemonic.startswith("buffer_store") for i in lp.instructions)
    ]
    assert not looped, f"{arch}: buffer stores inside loops headed at {looped} (a waterfall loop)"


def test_edge_stores_keep_their_whole_offset_range_checked(instructions):
    """An element past n is dropped because its offset lies past the
    buffer's end. The hardware checks the offset register plus the
    instruction's immediate against the buffer's size, but not the scalar
    offset (IntrinsicsAMDGPU.td, raw buffer stores: `offset` "included in
    bounds checking", `soffset` "excluded"). The lowering passes soffset 0;
    if LLVM ever moved part of an offset there, a pushed-out element could
    land inside the buffer again. So every edge store's soffset operand must
    be the constant 0 (`null` on gfx12)."""
    arch, insts = instructions
    soffsets = {i.operands.split(",")[3].split()[0] for i in insts if i.mnemonic.startswith("buffer_store")}
    assert soffsets and soffsets <= {"0", "null"}, f"{arch}: edge buffer stores with scalar offsets {sorted(soffsets)}"
