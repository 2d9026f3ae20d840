"""The verifier's walls: each test is a kernel the verifier once let through
to LLVM (or to a raw Python error), and what it says now."""

import pytest

from ir import types as T
from ir.builder import KernelBuilder
from ir.core import MAX_NESTING, Block, Op, Value, VerifyError
from ir.parser import parse
from ir.printer import print_kernel
from ir.verifier import verify

F8 = T.F8E4M3
V8 = T.vector(T.F8E4M3, 8)


def builder(arch="gfx942", **kw):
    return KernelBuilder("k", arch=arch, workgroup_size=kw.pop("workgroup_size", (64, 1, 1)), **kw)


# -- fp8 is storage-only ---------------------------------------------------------

FP8_MISUSES = {
    "add": lambda b, x: b.add(x, x),
    "mul": lambda b, x: b.mul(x, x),
    "max": lambda b, x: b.max(x, x),
    "cmp": lambda b, x: b.cmp("lt", x, x),
    "neg": lambda b, x: b.neg(x),
    "select": lambda b, x: b.select(b.cmp("lt", b.thread_id(0), 3), x, x),
    "const": lambda b, x: b.const(1.0, x.type),
}


@pytest.mark.parametrize("misuse", sorted(FP8_MISUSES))
@pytest.mark.parametrize("type_", [T.F8E4M3, T.F8E5M2, V8], ids=str)
def test_fp8_arithmetic_is_rejected_with_the_fix(misuse, type_):
    b = builder()
    x = b.load(b.arg("p", T.GLOBAL), type_)
    with pytest.raises(VerifyError) as err:
        FP8_MISUSES[misuse](b, x)
    message = str(err.value)
    assert f"got {'operand' if misuse != 'const' else 'result'} of type {type_}" in message
    assert "fp8 is storage-only: arith.bitcast, arith.convert, buffer.load" in message
    assert "arith.convert it to f16 or f32 first" in message


def test_fp8_arithmetic_in_text_is_rejected_too():
    kernel = parse(
        'kernel @k(%p: ptr<global>) {arch = "gfx950", wave_size = 64, workgroup_size = [64, 1, 1]} {\n'
        "  %0 = mem.load(%p) : f8e4m3\n"
        "  %1 = arith.add(%0, %0) : f8e4m3\n"
        "}\n"
    )
    with pytest.raises(VerifyError, match="arith.add: expected no fp8 operand"):
        verify(kernel)


def test_fp8_still_moves_converts_and_multiplies():
    b = builder("gfx950")
    p, r = b.arg("p", T.GLOBAL), b.buffer_rsrc(b.arg("q", T.GLOBAL), 64)
    a = b.load(p, V8)
    one = b.extract(a, 0)
    a = b.insert(b.shuffle(a, a, list(range(8))), one, 1)
    a = b.build([b.extract(a, i) for i in range(8)])
    b.store(p, b.convert(b.add(b.convert(one, T.F32), 1.0), F8))
    b.buffer_store(r, 0, b.buffer_load(r, 8, V8))
    b.store(p, b.bitcast(b.bitcast(a, T.I64), V8))
    b.store(p, b.mma("mma_16x16x32_fp8_f32", a, a, b.load(p, T.vector(T.F32, 4))))
    verify(b.finish())


def test_fp8_kernel_argument_is_rejected():
    b = builder()
    b.arg("x", F8)
    with pytest.raises(VerifyError, match="expected no fp8 argument .* pass it as i8 and arith.bitcast it"):
        b.finish()


# -- one spelling per integer constant -------------------------------------------------


@pytest.mark.parametrize(
    "type_,value",
    [(T.I32, 4294967295), (T.I32, 1 << 31), (T.I8, 255), (T.I64, 1 << 63), (T.I1, -1), (T.I16, -(1 << 15) - 1)],
    ids=str,
)
def test_integer_constants_outside_the_signed_range_are_rejected(type_, value):
    lo, hi = T.int_range(type_)
    with pytest.raises(VerifyError, match=rf"arith.const: expected a value in \[{lo}, {hi}\] for {type_}, got {value}"):
        builder().const(value, type_)


def test_integer_constant_text_has_one_spelling():
    text = 'kernel @k() {arch = "gfx942", wave_size = 64, workgroup_size = [64, 1, 1]} {\n  %0 = arith.const() {value = 4294967295} : i32\n}\n'
    with pytest.raises(
        VerifyError,
        match=r"expected a value in \[-2147483648, 2147483647\] for i32, got 4294967295; as i32 it is spelled -1$",
    ):
        verify(parse(text))
    b = builder()
    for t in (T.I8, T.I16, T.I32, T.I64):
        lo, hi = T.int_range(t)
        b.const(lo, t), b.const(hi, t)
    verify(b.finish())


# -- the wave size each matrix op needs --------------------------------------------------


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151", "gfx1201"])
def test_wmma_in_a_wave64_kernel_is_rejected(arch):
    from arch import arch as archs
    from ir import mma

    info = archs.get(arch)
    op_id = info.matrix[0].op
    a_t, b_t, c_t = mma.fragment_types(op_id, info.generation)
    for wave in (32, 64):
        b = builder(arch, wave_size=wave)
        p = b.arg("p", T.GLOBAL)

        def make():
            return b.mma(op_id, b.load_wide(p, a_t), b.load_wide(p, b_t), b.load_wide(p, c_t))

        if wave == 32:
            make()
            verify(b.finish())
        else:
            make()  # the op alone is well formed; the kernel's wave size is not
            with pytest.raises(
                VerifyError,
                match=f"matrix.mma: expected a wave32 kernel for {op_id} on {arch}, got wave_size 64; build the kernel with wave_size=32",
            ):
                b.finish()


# -- the arch's limits, from archs.json ---------------------------------------------------


@pytest.mark.parametrize("arch,ok,bad", [("gfx942", 8, 9), ("gfx90a", 8, 9), ("gfx1201", 16, 17), ("gfx1250", 16, 17)])
def test_waves_per_eu_range_is_the_arch_s(arch, ok, bad):
    verify(builder(arch, waves_per_eu=ok).finish())
    with pytest.raises(VerifyError, match=f"expected waves_per_eu to be an int in 1..{ok} on {arch}, got {bad}"):
        builder(arch, waves_per_eu=bad).finish()


@pytest.mark.parametrize("arch,limit", [("gfx942", 65536), ("gfx950", 163840), ("gfx1201", 65536), ("gfx1250", 327680)])
def test_static_lds_over_the_arch_s_is_rejected(arch, limit):
    b = builder(arch)
    b.lds_alloc(limit // 2)
    b.lds_alloc(limit // 2)
    verify(b.finish())
    b.lds_alloc(4, align=4)
    with pytest.raises(
        VerifyError,
        match=f"expected at most {limit} bytes of LDS on {arch}, got {limit + 4} bytes in 3 mem.lds_alloc; use smaller tiles",
    ):
        b.finish()


def test_lds_padding_to_alignment_counts():
    b = builder()
    for _ in range(4096):
        b.lds_alloc(1)  # each takes 16 bytes at align 16
    verify(b.finish())
    b.lds_alloc(1)
    with pytest.raises(VerifyError, match="got 65552 bytes in 4097 mem.lds_alloc"):
        b.finish()


def test_lds_alloc_only_at_the_top_level():
    b = builder()
    with b.for_range(0, 4):
        b.lds_alloc(64)
    with pytest.raises(VerifyError, match="mem.lds_alloc: expected mem.lds_alloc only in the kernel's top-level block"):
        b.finish()


def test_workgroup_limit_is_the_arch_s():
    verify(builder(workgroup_size=(1024, 1, 1)).finish())
    with pytest.raises(VerifyError, match=r"x\*y\*z <= 1024 on gfx942, got \[1024, 2, 1\]"):
        builder(workgroup_size=(1024, 2, 1)).finish()


# -- attributes and names that reached LLVM or a raw Python error -------------------------


def test_float_or_bool_where_an_int_attribute_is_expected():
    b = builder()
    with pytest.raises(VerifyError, match="gpu.thread_id: expected dim to be 0, 1 or 2, got 0.0"):
        b.emit("gpu.thread_id", [], [T.I32], {"dim": 0.0})
    b.kernel.attrs["wave_size"] = 64.0
    with pytest.raises(VerifyError, match=r"expected a wave size of gfx942 \(64\), got 64.0"):
        b.finish()


def test_unknown_op_attribute_is_rejected():
    b = builder()
    with pytest.raises(VerifyError, match=r"gpu.barrier: expected attributes among \(\), got sync"):
        b.emit("gpu.barrier", [], [], {"sync": 1})


@pytest.mark.parametrize("name", ["my kernel", "1k", "k-1", "ké", ""])
def test_kernel_names_are_ascii_identifiers(name):
    b = builder()
    b.kernel.name = name
    with pytest.raises(VerifyError, match="kernel: expected a name of ASCII letters, digits and _"):
        b.finish()


def test_argument_names_are_ascii_identifiers():
    b = builder()
    b.arg("é", T.I32)
    with pytest.raises(VerifyError, match="expected distinct argument names of ASCII letters"):
        b.finish()


def test_shuffle_longer_than_a_vector_is_a_verify_error():
    b = builder()
    v = b.load(b.arg("p", T.GLOBAL), T.vector(T.F32, 4))
    op = Op("vector.shuffle", (v, v), (Value(T.vector(T.F32, 64)),), {"mask": [0] * 65})
    b.kernel.body.ops.append(op)
    with pytest.raises(VerifyError, match=r"vector.shuffle: expected mask to be a list of 2 to 64 indices"):
        verify(b.kernel)


@pytest.mark.parametrize("src,dst", [(T.I8, T.I1), (T.I1, T.I8), (T.I8, T.vector(T.I1, 8))], ids=str)
def test_bitcast_to_or_from_i1_is_rejected(src, dst):
    b = builder()
    x = b.load(b.arg("p", T.GLOBAL), src) if src is not T.I1 else b.cmp("lt", b.thread_id(0), 1)
    with pytest.raises(VerifyError, match="arith.bitcast: expected no i1 operand or result"):
        b.bitcast(x, dst)


def _nested_ifs(depth):
    """A kernel whose deepest region sits `depth` levels down (its body is
    level 1), with a vector.shuffle there: a list attribute at that depth."""
    b = builder()
    cond = b.cmp("lt", b.thread_id(0), 1)
    x = b.load(b.arg("p", T.GLOBAL), T.vector(T.F32, 2))
    inner = Block([], [Op("vector.shuffle", (x, x), (Value(x.type),), {"mask": [0, 3]}), Op("scf.yield", (), (), {})])
    for _ in range(depth - 2):
        inner = Block(
            [],
            [
                Op("scf.if", (cond,), (), {}, (inner, Block([], [Op("scf.yield", (), (), {})]))),
                Op("scf.yield", (), (), {}),
            ],
        )
    b.kernel.body.ops.append(Op("scf.if", (cond,), (), {}, (inner, Block([], [Op("scf.yield", (), (), {})]))))
    return b.kernel


def test_nesting_deeper_than_the_parser_reads_is_rejected():
    kernel = _nested_ifs(MAX_NESTING)
    verify(kernel)
    assert print_kernel(parse(print_kernel(kernel))) == print_kernel(kernel)
    with pytest.raises(
        VerifyError,
        match=f"region: expected regions nested at most {MAX_NESTING} deep, got a region at depth {MAX_NESTING + 1}",
    ):
        verify(_nested_ifs(MAX_NESTING + 1))


# -- gfx950's memory ops ---------------------------------------------------------


@pytest.mark.parametrize(
    "operands,result,message",
    [
        ([T.GLOBAL], T.vector(T.F16, 4), "mem.load_transpose: expected a ptr<lds> operand, got ptr<global>"),
        (
            [T.LDS],
            T.vector(T.F16, 8),
            "mem.load_transpose: expected a result of type vector<4xf16>, vector<4xbf16>, vector<4xi16>, got vector<8xf16>",
        ),
    ],
)
def test_load_transpose_takes_lds_and_gives_four_16_bit_elements(operands, result, message):
    b = builder(arch="gfx950")
    with pytest.raises(VerifyError, match=f"^{message}$"):
        b.emit("mem.load_transpose", [b.lds_alloc(64) if t is T.LDS else b.arg("p", t) for t in operands], [result])


@pytest.mark.parametrize(
    "src,dst,message",
    [
        (T.LDS, T.LDS, "mem.load_to_lds: expected a ptr<global> source, got ptr<lds>"),
        (T.GLOBAL, T.GLOBAL, "mem.load_to_lds: expected a ptr<lds> destination, got ptr<global>"),
    ],
)
def test_load_to_lds_copies_global_to_lds(src, dst, message):
    b = builder(arch="gfx950")
    values = {T.LDS: b.lds_alloc(1024), T.GLOBAL: b.arg("p", T.GLOBAL)}
    with pytest.raises(VerifyError, match=f"^{message}$"):
        b.load_to_lds(values[src], values[dst])


@pytest.mark.parametrize(
    "types,message",
    [
        ((T.GLOBAL, T.I32, T.I32, T.LDS), "buffer.load_to_lds: expected a ptr<buffer> source, got ptr<global>"),
        ((T.BUFFER, T.I64, T.I32, T.LDS), "buffer.load_to_lds: expected i32 lane and wave byte offsets, got i64, i32"),
        ((T.BUFFER, T.I32, T.F32, T.LDS), "buffer.load_to_lds: expected i32 lane and wave byte offsets, got i32, f32"),
        ((T.BUFFER, T.I32, T.I32, T.GLOBAL), "buffer.load_to_lds: expected a ptr<lds> destination, got ptr<global>"),
    ],
)
def test_buffer_load_to_lds_copies_a_buffer_to_lds(types, message):
    b = builder(arch="gfx950")
    p = b.arg("p", T.GLOBAL)
    values = {
        T.LDS: b.lds_alloc(1024),
        T.GLOBAL: p,
        T.BUFFER: b.buffer_rsrc(p, 64),
        T.I32: b.const(0, T.I32),
        T.I64: b.const(0, T.I64),
        T.F32: b.const(0.0, T.F32),
    }
    with pytest.raises(VerifyError, match=f"^{message}$"):
        b.emit("buffer.load_to_lds", [values[t] for t in types], [])


# -- nnan: a promise about floats -------------------------------------------------


def test_nnan_max_on_ints_is_rejected_and_plain_max_needs_no_nnan():
    b = builder()
    i = b.thread_id(0)
    with pytest.raises(VerifyError, match="arith.max: expected nnan on float operands only, got i32"):
        b.max_nnan(i, 3)
    assert b.max(i, 3).type is T.I32  # the attribute is optional: a max without it verifies
