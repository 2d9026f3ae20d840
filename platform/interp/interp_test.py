"""The interpreter on small kernels, against numpy. Among them, direct loads to
LDS (mem.load_to_lds, buffer.load_to_lds) are asynchronous: their bytes land
at the next barrier and any LDS access to them before it is an error; the
buffer form reads zeros past its buffer and wants one wave offset per wave."""

import re

import numpy as np
import pytest

from interp import numerics as N
from interp import interp
from interp.interp import InterpError, run
from ir import mma as M
from ir import types as T
from ir.builder import KernelBuilder
from ir.core import VerifyError
from ir.parser import parse
from lower import floats


def builder(wg=64, arch="gfx942"):
    return KernelBuilder("k", arch=arch, workgroup_size=(wg, 1, 1))


def test_axpy_with_bounds_check():
    b = builder()
    x, y, a, n = b.arg("x", T.GLOBAL), b.arg("y", T.GLOBAL), b.arg("a", T.F32), b.arg("n", T.I32)
    i = b.add(b.mul(b.block_id(0), 64), b.thread_id(0))
    with b.if_(b.cmp("lt", i, n)):
        off = b.mul(i, 4)
        b.store(b.offset(y, off), b.fma(a, b.load(b.offset(x, off), T.F32), b.load(b.offset(y, off), T.F32)))
    X, Y = np.arange(100, dtype=np.float32), np.ones(100, np.float32)
    run(b.finish(), (2, 1, 1), [X, Y, 3.0, 100])
    np.testing.assert_array_equal(Y, 3 * np.arange(100, dtype=np.float32) + 1)


def test_div_and_rem_are_signed_and_udiv_urem_read_the_bits_unsigned():
    # Each lane divides x[i] by d[i] four ways; hand-computed, two's complement i32.
    b = builder()
    x, d, out = b.arg("x", T.GLOBAL), b.arg("d", T.GLOBAL), b.arg("out", T.GLOBAL)
    i = b.thread_id(0)
    with b.if_(b.cmp("lt", i, 4)):
        xi, di = b.load(b.offset(x, b.mul(i, 4)), T.I32), b.load(b.offset(d, b.mul(i, 4)), T.I32)
        for slot, v in enumerate((b.div(xi, di), b.rem(xi, di), b.udiv(xi, di), b.urem(xi, di))):
            b.store(b.offset(out, b.mul(b.add(b.mul(i, 4), slot), 4)), v)
    X = np.array([7, -7, -1, -8], np.int32)
    D = np.array([3, 3, 2, -3], np.int32)
    out = np.zeros(16, np.int32)
    run(b.finish(), (1, 1, 1), [X, D, out])
    expected = [
        [2, 1, 2, 1],
        [-2, -1, 1431655763, 0],  # 4294967289 = 3 * 1431655763
        [0, -1, 2147483647, 1],  # 4294967295 = 2 * 2147483647 + 1
        [2, -2, 0, -8],  # 4294967288 < 4294967293: quotient 0, remainder the dividend's bits
    ]
    np.testing.assert_array_equal(out.reshape(4, 4), expected)


def test_out_of_bounds_global_access_is_an_error():
    b = builder()
    x = b.arg("x", T.GLOBAL)
    b.store(b.offset(x, b.mul(b.thread_id(0), 4)), b.const(1.0, T.F32))
    with pytest.raises(
        InterpError,
        match=r"expected an access within 128 bytes, got 4 bytes at offset 128 in lane 32 of its wave, thread \(32, 0, 0\) of workgroup \(0, 0, 0\)",
    ):
        run(b.finish(), (1, 1, 1), [np.zeros(32, np.float32)])


def test_lds_is_shared_per_workgroup_and_barriers_order_it():
    # Each workgroup reverses its 64 values through LDS.
    b = builder()
    x = b.arg("x", T.GLOBAL)
    tid = b.thread_id(0)
    g = b.add(b.mul(b.block_id(0), 64), tid)
    lds = b.lds_alloc(256)
    b.store(b.offset(lds, b.mul(tid, 4)), b.load(b.offset(x, b.mul(g, 4)), T.I32))
    b.barrier()
    v = b.load(b.offset(lds, b.mul(b.sub(63, tid), 4)), T.I32)
    b.store(b.offset(x, b.mul(g, 4)), v)
    X = np.arange(192, dtype=np.int32)
    run(b.finish(), (3, 1, 1), [X])
    np.testing.assert_array_equal(X, np.concatenate([np.arange(64)[::-1] + 64 * w for w in range(3)]))


def test_divergent_barrier_is_an_error():
    b = builder()
    with b.if_(b.cmp("lt", b.thread_id(0), 7)):
        b.barrier()
    with pytest.raises(InterpError, match="divergent barrier"):
        run(b.finish(), (1, 1, 1), [])


def test_loop_trip_counts_differ_per_lane():
    b = builder()
    x = b.arg("x", T.GLOBAL)
    tid = b.thread_id(0)
    with b.for_range(0, tid, 1, [b.const(0, T.I32)]) as loop:
        b.yield_(b.add(loop.iters[0], loop.iv))
    b.store(b.offset(x, b.mul(tid, 4)), loop.results[0])
    X = np.zeros(64, np.int32)
    run(b.finish(), (1, 1, 1), [X])
    np.testing.assert_array_equal(X, [t * (t - 1) // 2 for t in range(64)])


def test_buffer_loads_outside_the_resource_read_zero_and_stores_drop():
    b = builder()
    x, out = b.arg("x", T.GLOBAL), b.arg("out", T.GLOBAL)
    tid = b.thread_id(0)
    r = b.buffer_rsrc(x, 40)  # 10 floats visible
    v = b.buffer_load(r, b.mul(tid, 4), T.F32)
    b.store(b.offset(out, b.mul(tid, 4)), v)
    b.buffer_store(r, b.mul(tid, 4), b.add(v, 1.0))
    X, OUT = np.arange(64, dtype=np.float32), np.full(64, -1, np.float32)
    run(b.finish(), (1, 1, 1), [X, OUT])
    np.testing.assert_array_equal(OUT, np.where(np.arange(64) < 10, np.arange(64), 0))
    np.testing.assert_array_equal(X, np.where(np.arange(64) < 10, np.arange(64) + 1, np.arange(64)))


def test_a_buffer_load_straddling_the_end_reads_its_dwords_inside_and_zeros_after():
    """Each dword of a vector load is range checked on its own, as the hardware does: a 16-byte
    load at byte 2t of a 40-byte buffer keeps the dwords that end by byte 40."""
    b = builder()
    x, out = b.arg("x", T.GLOBAL), b.arg("out", T.GLOBAL)
    tid = b.thread_id(0)
    v = b.buffer_load(b.buffer_rsrc(x, 40), b.mul(tid, 2), T.vector(T.I16, 8))
    b.store(b.offset(out, b.mul(tid, 16)), v)
    X, OUT = np.arange(128, dtype=np.int16), np.full((64, 8), -1, np.int16)
    run(b.finish(), (1, 1, 1), [X, OUT])
    want = np.array([[t + e if 2 * t + 4 * (e // 2) + 4 <= 40 else 0 for e in range(8)] for t in range(64)])
    np.testing.assert_array_equal(OUT, want)


def test_a_negative_buffer_byte_count_is_a_huge_unsigned_one():
    """The hardware reads the count as unsigned: -4 bytes lets every store through."""
    b = builder()
    x = b.arg("x", T.GLOBAL)
    b.buffer_store(b.buffer_rsrc(x, -4), b.mul(b.thread_id(0), 4), b.const(1.0, T.F32))
    X = np.zeros(64, np.float32)
    run(b.finish(), (1, 1, 1), [X])
    np.testing.assert_array_equal(X, np.ones(64))


def test_atomic_add_accumulates_every_lane():
    b = builder()
    x = b.arg("x", T.GLOBAL)
    b.atomic_add(x, b.convert(b.thread_id(0), T.F32))
    X = np.zeros(1, np.float32)
    run(b.finish(), (4, 1, 1), [X])
    assert X[0] == 4 * sum(range(64))


def test_readfirstlane_and_bpermute_stay_within_a_wave():
    b = builder(wg=128)
    x = b.arg("x", T.GLOBAL)
    tid = b.thread_id(0)
    first = b.readfirstlane(tid)
    rotated = b.bpermute(b.mul(b.rem(b.add(b.lane_id(), 1), 64), 4), tid)
    b.store(b.offset(x, b.mul(tid, 8)), first)
    b.store(b.offset(x, b.add(b.mul(tid, 8), 4)), rotated)
    X = np.zeros((128, 2), np.int32)
    run(b.finish(), (1, 1, 1), [X])
    np.testing.assert_array_equal(X[:, 0], np.repeat([0, 64], 64))
    np.testing.assert_array_equal(X[:, 1], [(t // 64) * 64 + (t % 64 + 1) % 64 for t in range(128)])


def test_bf16_rounds_to_nearest_even():
    x = np.array([1.0, 1.00390625, 1.01171875, 3.0e38, np.nan], np.float32)
    bf = N.round_bf16(x)
    assert bf[0] == 1.0 and bf[1] == 1.0 and bf[2] == 1.015625
    assert np.isnan(bf[4])


@pytest.mark.parametrize("fmt", ["f8e4m3", "f8e5m2"])
def test_two_independent_fp8_codecs_agree(fmt):
    # The interpreter's nearest-value search vs the lowering's bit arithmetic.
    rng = np.random.default_rng(7)
    values = np.concatenate(
        [rng.standard_normal(3000) * s for s in (1e-3, 0.1, 1, 30, 500, 1e5)]
        + [[0.0, -0.0, np.nan, 448, 449, 57344, 1e9]]
    )
    values = values.astype(np.float32)
    ours = N.fp8_encode(values, fmt)
    theirs = np.array([floats.encode_fp8(float(v), fmt) for v in values], np.uint8)
    np.testing.assert_array_equal(ours, theirs)
    decoded = N.fp8_decode(np.arange(256, dtype=np.uint8), fmt)
    expected = np.array([floats.decode_fp8(c, fmt) for c in range(256)], np.float32)
    np.testing.assert_array_equal(decoded, expected)


def test_fp8_known_values():
    assert N.fp8_decode(np.array([0x7E]), "f8e4m3")[0] == 448.0
    assert N.fp8_decode(np.array([0x7B]), "f8e5m2")[0] == 57344.0
    assert N.fp8_encode(np.array([1000.0]), "f8e4m3")[0] == 0x7E  # saturates
    assert N.fp8_decode(np.array([0x01]), "f8e4m3")[0] == 2.0**-9  # smallest subnormal


def _gfx11_wmma(a_frags, b_frags):
    """Run one gfx11 WMMA whose lane l holds a_frags[l] and b_frags[l] (f16, 32 x 16); C = 0."""
    op = "mma_16x16x16_f16_f32"
    a_t, b_t, c_t = M.fragment_types(op, "gfx11")
    b = builder(wg=32, arch="gfx1100")
    pa, pb, pd = b.arg("a", T.GLOBAL), b.arg("b", T.GLOBAL), b.arg("d", T.GLOBAL)
    lane = b.lane_id()
    a = b.load_wide(b.offset(pa, b.mul(lane, a_t.nbytes)), a_t)
    bb = b.load_wide(b.offset(pb, b.mul(lane, b_t.nbytes)), b_t)
    zero = b.build([b.const(0.0, T.F32)] * c_t.n)
    b.store_wide(b.offset(pd, b.mul(lane, c_t.nbytes)), b.mma(op, a, bb, zero))
    d = np.zeros((32, c_t.n), np.float32)
    run(b.finish(), (1, 1, 1), [np.ascontiguousarray(a_frags), np.ascontiguousarray(b_frags), d])
    return d


def _replicated(rows16):
    return np.concatenate([rows16, rows16]).astype(np.float16)


def test_gfx11_wmma_reads_replicated_lanes():
    # AMD's calculator (rdna3, wave32): lane l holds row l % 16 of A (column of
    # B) in element k; D[i][j] is element i // 2 of lane 16 * (i % 2) + j.
    rng = np.random.default_rng(3)
    a16, b16 = rng.integers(-4, 5, (16, 16)), rng.integers(-4, 5, (16, 16))
    d = _gfx11_wmma(_replicated(a16), _replicated(b16))
    expected = a16 @ b16.T
    got = np.array([[d[16 * (i % 2) + j, i // 2] for j in range(16)] for i in range(16)])
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("matrix", ["A", "B"])
def test_gfx11_wmma_lanes_i_and_i_plus_16_must_agree(matrix):
    frags = {"A": _replicated(np.ones((16, 16))), "B": _replicated(np.ones((16, 16)))}
    frags[matrix][19, 5] = 2.0  # lane 19 disagrees with lane 3 on element 5
    what = "A[3][5]" if matrix == "A" else "B[5][3]"
    with pytest.raises(
        InterpError,
        match=rf"matrix.mma mma_16x16x16_f16_f32 on gfx11: lanes 3 and 19 hold {re.escape(what)} and must agree, got 1.0 and 2.0",
    ):
        _gfx11_wmma(frags["A"], frags["B"])


# -- only InterpError, naming the op and the lane -------------------------------------


def test_a_stray_python_error_in_an_op_becomes_an_interp_error(monkeypatch):
    b = builder(wg=128)
    x = b.arg("x", T.GLOBAL)
    with b.if_(b.cmp("ge", b.thread_id(0), 70)):
        b.store(b.offset(x, b.mul(b.thread_id(0), 4)), b.add(b.thread_id(0), 1))

    def broken(c, op, mask):
        raise ZeroDivisionError("a bug in the interpreter")

    monkeypatch.setitem(interp.EXEC, "arith.add", broken)
    with pytest.raises(InterpError) as err:
        run(b.finish(), (1, 1, 1), [np.zeros(128, np.int32)])
    assert str(err.value) == (
        "arith.add (op 10 in program order of kernel @k): expected to run, got ZeroDivisionError: a bug in the interpreter; "
        "58 lanes active, the first lane 6 of its wave, thread (70, 0, 0) of workgroup (0, 0, 0)"
    )


def test_neg_of_i1_is_itself_not_a_numpy_error():
    b = builder()
    x = b.arg("x", T.GLOBAL)
    t = b.cmp("lt", b.thread_id(0), 5)
    b.store(b.offset(x, b.mul(b.thread_id(0), 4)), b.convert(b.neg(t), T.I32))
    X = np.full(64, 7, np.int32)
    run(b.finish(), (1, 1, 1), [X])
    np.testing.assert_array_equal(X, np.arange(64) < 5)  # sub i1 0, x == x: zext gives 1


@pytest.mark.parametrize("value", [1 << 31, -(1 << 31) - 1, 2.5, "3", None])
def test_a_scalar_argument_of_the_wrong_range_or_kind_is_an_interp_error(value):
    b = builder()
    x, n = b.arg("x", T.GLOBAL), b.arg("n", T.I32)
    b.store(x, n)
    with pytest.raises(InterpError, match=f"run: expected a i32 value for %n, got {value!r}"):
        run(b.finish(), (1, 1, 1), [np.zeros(1, np.int32), value])


@pytest.mark.parametrize(
    "grid,args,message",
    [
        (5, [], "run: expected a grid of 1 to 3 positive ints (workgroups in x, y, z), got 5"),
        ((1, 0), [], "run: expected a grid of 1 to 3 positive ints (workgroups in x, y, z), got (1, 0)"),
        ((1,), None, "run: expected a list of 0 arguments (), got None"),
    ],
)
def test_a_bad_grid_or_argument_list_is_an_interp_error(grid, args, message):
    with pytest.raises(InterpError) as err:
        run(builder().finish(), grid, args)
    assert str(err.value) == message


def test_a_loop_that_never_ends_is_an_interp_error():
    b = builder()
    step = b.arg("step", T.I32)
    with b.for_range(0, 10, step):
        pass
    with pytest.raises(
        InterpError, match=r"scf.for: expected a positive step when lo < hi, got step 0 in lane 0 of its wave"
    ):
        run(b.finish(), (1, 1, 1), [0])


def test_an_out_of_range_constant_stops_at_the_verifier_not_numpy():
    text = 'kernel @k() {arch = "gfx942", wave_size = 64, workgroup_size = [64, 1, 1]} {\n  %0 = arith.const() {value = 4294967295} : i32\n}\n'
    with pytest.raises(VerifyError, match="for i32, got 4294967295"):
        run(parse(text), (1, 1, 1), [])


def _transpose_kernel(active=64):
    # A 4 x 64 f16 tile, row-major in LDS (128 bytes a row). Each 16-lane group
    # g reads its 4 x 16 slice by rows (lane q: row q // 4, columns 16g + 4(q % 4)
    # .. + 3) and gets it back by columns.
    b = builder(arch="gfx950")
    x, out = b.arg("x", T.GLOBAL), b.arg("out", T.GLOBAL)
    tid = b.thread_id(0)
    lds = b.lds_alloc(4 * 128)
    for r in range(4):
        b.store(b.offset(lds, b.add(b.mul(tid, 2), 128 * r)), b.load(b.offset(x, b.add(b.mul(tid, 2), 128 * r)), T.F16))
    b.barrier()
    q, g = b.rem(tid, 16), b.div(tid, 16)
    at = b.add(b.mul(b.div(q, 4), 128), b.mul(b.add(b.mul(g, 16), b.mul(b.rem(q, 4), 4)), 2))
    with b.if_(b.cmp("lt", tid, active)):
        b.store(b.offset(out, b.mul(tid, 8)), b.load_transpose(b.offset(lds, at), T.F16))
    return b.finish()


def test_load_transpose_gives_each_lane_a_column_of_its_groups_tile():
    X = np.arange(4 * 64, dtype=np.float16).reshape(4, 64) * np.float16(0.5) - 3
    out = np.zeros((64, 4), np.float16)
    run(_transpose_kernel(), (1, 1, 1), [X, out])
    np.testing.assert_array_equal(out, X.T)


def test_load_transpose_needs_whole_groups_of_16_lanes():
    X, out = np.zeros((4, 64), np.float16), np.zeros((64, 4), np.float16)
    with pytest.raises(
        InterpError,
        match=r"mem.load_transpose: expected all or none of each group of 16 lanes active \(they exchange data\), got 4 of 16 active, from lane 16 of its wave",
    ):
        run(_transpose_kernel(active=20), (1, 1, 1), [X, out])


def _to_lds_kernel(uniform=True, barrier=True, then_store=False):
    # Two waves; lane L of wave w copies 16-byte unit perm[64w + L] of x to
    # LDS unit 64w + L; then every lane reads its LDS unit back out (or
    # first writes it: then_store).
    b = builder(wg=128, arch="gfx950")
    x, perm, out = b.arg("x", T.GLOBAL), b.arg("perm", T.GLOBAL), b.arg("out", T.GLOBAL)
    tid = b.thread_id(0)
    lds = b.lds_alloc(128 * 16)
    src = b.offset(x, b.mul(b.load(b.offset(perm, b.mul(tid, 4)), T.I32), 16))
    base = b.mul(b.div(tid, 64), 1024) if uniform else b.mul(tid, 16)
    b.load_to_lds(src, b.offset(lds, base))
    if then_store:
        b.store(b.offset(lds, b.mul(tid, 16)), b.build([b.const(0, T.I32)] * 4))
    if barrier:
        b.barrier()
    b.store(b.offset(out, b.mul(tid, 16)), b.load(b.offset(lds, b.mul(tid, 16)), T.vector(T.I32, 4)))
    return b.finish()


def test_load_to_lds_writes_lane_l_16_bytes_at_the_waves_destination_plus_16_l():
    X = np.arange(128 * 4, dtype=np.int32).reshape(128, 4)
    perm = np.random.default_rng(7).permutation(128).astype(np.int32)
    out = np.zeros((128, 4), np.int32)
    run(_to_lds_kernel(), (1, 1, 1), [X, perm, out])
    np.testing.assert_array_equal(out, X[perm])


@pytest.mark.parametrize("then_store", [False, True])
def test_load_to_lds_is_asynchronous_until_a_barrier(then_store):
    # The load lands in LDS at the next barrier (the lowering's barrier waits
    # for it, as s_waitcnt vmcnt(0) before s_barrier shows); reading or
    # writing its bytes before is an error, not a silent old value.
    X, perm, out = np.zeros((128, 4), np.int32), np.arange(128, dtype=np.int32), np.zeros((128, 4), np.int32)
    op = "mem.store" if then_store else "mem.load"
    with pytest.raises(
        InterpError,
        match=rf"^{op}: expected no access to LDS bytes a direct-to-LDS load has yet to write, got one in lane 0 of its wave, thread \(0, 0, 0\) of workgroup \(0, 0, 0\); a barrier must come between",
    ):
        run(_to_lds_kernel(barrier=False, then_store=then_store), (1, 1, 1), [X, perm, out])


def _buffer_to_lds_kernel(uniform=True):
    # Two waves; lane L of wave w copies 16-byte unit L + 2 of the buffer
    # (the wave offset: 2 units, or 0 and 2 in turn from lane to lane) to
    # LDS unit 64w + L, then every lane reads its LDS unit back out. The
    # buffer is 40 units.
    b = builder(wg=128, arch="gfx950")
    x, out = b.arg("x", T.GLOBAL), b.arg("out", T.GLOBAL)
    tid = b.thread_id(0)
    lds = b.lds_alloc(128 * 16)
    wave = b.div(tid, 64)
    b.buffer_load_to_lds(
        b.buffer_rsrc(x, 40 * 16),
        b.mul(b.rem(tid, 64), 16),
        32 if uniform else b.mul(b.rem(tid, 2), 32),
        b.offset(lds, b.mul(wave, 1024)),
    )
    b.barrier()
    b.store(b.offset(out, b.mul(tid, 16)), b.load(b.offset(lds, b.mul(tid, 16)), T.vector(T.I32, 4)))
    return b.finish()


def test_buffer_load_to_lds_reads_the_lane_plus_wave_offset_and_zeros_past_the_buffer():
    X = np.arange(128 * 4, dtype=np.int32).reshape(128, 4)
    out = np.full((128, 4), -1, np.int32)
    run(_buffer_to_lds_kernel(), (1, 1, 1), [X, out])
    want = np.tile(X[2:66], (2, 1))
    want[np.tile(np.arange(2, 66), 2) >= 40] = 0  # units 40.. lie past the buffer
    np.testing.assert_array_equal(out, want)


def test_buffer_load_to_lds_needs_one_wave_offset_per_wave():
    X, out = np.zeros((128, 4), np.int32), np.zeros((128, 4), np.int32)
    with pytest.raises(
        InterpError,
        match=r"buffer.load_to_lds: expected the wave offset the same in every lane of a wave, got two in the wave of lane 0 of its wave, .* and lane 1 of its wave",
    ):
        run(_buffer_to_lds_kernel(uniform=False), (1, 1, 1), [X, out])


def test_load_to_lds_needs_one_destination_per_wave():
    X, perm, out = np.zeros((128, 4), np.int32), np.arange(128, dtype=np.int32), np.zeros((128, 4), np.int32)
    with pytest.raises(
        InterpError,
        match=r"mem.load_to_lds: expected the LDS destination the same in every lane of a wave, got two in the wave of lane 0 of its wave, .* and lane 1 of its wave",
    ):
        run(_to_lds_kernel(uniform=False), (1, 1, 1), [X, perm, out])
