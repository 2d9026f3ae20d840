"""The C++ printer, parser and lowering (rk_tool) against Python's, byte for
byte: random kernels over every op (ir/kernel_gen.py), directed kernels for
fp8 converts, every matrix op on every arch, buffer accesses of every size,
barriers on every generation, and the tiled GEMM of platform/tile, each printed
back and lowered for every flavor. Where Python raises ArchDomainError, the
C++ must raise it with the same field, value and allowed values; malformed text (hand-written, and
mutated kernels) gets a ParseError with the same facts (errors.check_parity). One rk_tool process answers a
batch of requests.
To run it without Bazel, set RK_TOOL=/path/to/rk_tool and run pytest."""

import json
import os
import random
import subprocess

import pytest

from arch import arch as archs
from arch.flavor_facts import BUFFER_ACCESS, NAMES
from arch.mma_forms import FORMS
from errors.errors import check_parity
from ir import kernel_gen, mma, parser, printer
from ir import types as T
from ir.builder import KernelBuilder
from ir.core import walk
from lower.flavors import ArchDomainError
from lower.llvm import lower
from tile.gemm_example import gemm_kernel

TOOL = os.environ.get("RK_TOOL") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "rk_tool")
RANDOM_KERNELS = 1000


def run_tool(requests):
    """[(mode, flavor, text)] -> [(status, output)], one rk_tool run for all."""
    data = b"".join(
        f"{mode} {flavor} {len(text.encode())}\n".encode() + text.encode() for mode, flavor, text in requests
    )
    out = subprocess.run([TOOL], input=data, capture_output=True, check=True).stdout
    replies, pos = [], 0
    while pos < len(out):
        end = out.index(b"\n", pos)
        status, length = out[pos:end].decode().split(" ")
        pos = end + 1 + int(length)
        replies.append((status, out[end + 1 : pos].decode()))
    assert len(replies) == len(requests)
    return replies


def python_lower(kernel, flavor):
    try:
        return "ok", lower(kernel, flavor)
    except ArchDomainError as e:  # its facts, as rk_tool writes them: each engine words its own message
        return "ArchDomainError", json.dumps(e.facts(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def check_kernels(kernels):
    """Every kernel printed back and lowered for every flavor: C++ == Python."""
    texts = [printer.print_kernel(k) for k in kernels]
    requests, expected = [], []
    for kernel, text in zip(kernels, texts):
        requests.append(("print", "-", text))
        expected.append(("ok", text))
        for flavor in NAMES:
            requests.append(("lower", flavor, text))
            expected.append(python_lower(kernel, flavor))
    got = run_tool(requests)
    for (mode, flavor, text), want, have in zip(requests, expected, got):
        assert have == want, f"{mode} {flavor} of\n{text}"
    return expected


# -- random kernels over every op -------------------------------------------------


def test_random_kernels_cover_every_op_and_match():
    # faults=0: every case is a verified kernel.
    kernels = [kernel_gen.generate(kernel_gen.RandomChoices(seed)).kernel for seed in range(RANDOM_KERNELS)]
    used = {op.name for k in kernels for op in walk(k.body)}
    # The sample must reach every op the generator makes (else grow RANDOM_KERNELS).
    assert set(kernel_gen.OP_NAMES) <= used, sorted(set(kernel_gen.OP_NAMES) - used)
    results = check_kernels(kernels)
    # And it must exercise the refusal: gfx1250 on llvm20.
    assert any(status == "ArchDomainError" for status, _ in results)


# -- directed kernels -----------------------------------------------------------------

FP8 = (T.F8E4M3, T.F8E5M2)
WIDE = (T.F32, T.F16, T.BF16, T.I32, T.I8, T.I1)


def test_fp8_converts():
    kernels = []
    for arch in ("gfx942", "gfx950", "gfx1201"):
        b = KernelBuilder(f"fp8_{arch}", arch=arch, workgroup_size=(64, 1, 1))
        out = b.arg("out", T.GLOBAL)
        for fmt in FP8:
            for t in WIDE:
                x = b.const(1 if t is T.I1 else -3 if t.is_int else -2.75, t)
                code = b.convert(x, fmt)
                back = b.convert(code, t)
                v = b.build([x, x])
                vcode = b.convert(v, T.vector(fmt, 2))
                vback = b.convert(vcode, T.vector(t, 2))
                # i1 cannot be stored: the results go out as i32.
                b.store(out, b.convert(back, T.I32) if t is T.I1 else back)
                b.store(out, b.convert(vback, T.vector(T.I32, 2)) if t is T.I1 else vback)
            other = FP8[1] if fmt is FP8[0] else FP8[0]
            b.store(out, b.convert(b.convert(b.const(0.1, T.F32), fmt), other))
        kernels.append(b.finish())
    check_kernels(kernels)


def test_float_constants():
    values = (
        0.0,
        -0.0,
        1.0,
        -2.5,
        0.1,
        1e-8,
        5.960464477539063e-08,
        2.9802322387695312e-08,
        65504.0,
        65519.99,
        65520.0,
        3.0e38,
        3.5e38,
        1e300,
        float("inf"),
        float("-inf"),
        float("nan"),
    )
    b = KernelBuilder("consts", arch="gfx942", workgroup_size=(64, 1, 1))
    out = b.arg("out", T.GLOBAL)
    for t in (T.F32, T.F16, T.BF16):
        for v in values:
            b.store(out, b.const(v, t))
    for t in (T.I1, T.I8, T.I16, T.I32, T.I64):
        lo, hi = T.int_range(t)
        for v in (lo, hi, 0):
            c = b.const(v, t)
            b.store(out, b.convert(c, T.I32) if t is T.I1 else c)
    check_kernels([b.finish()])


def mma_kernel(op_id, generation, arch):
    info = archs.get(arch)
    b = KernelBuilder(f"mma_{arch}", arch=arch, workgroup_size=(64, 1, 1), wave_size=FORMS[(op_id, generation)].wave)
    p = b.arg("p", T.GLOBAL)
    a_t, b_t, c_t = mma.fragment_types(op_id, info.generation)

    def fragment(t):
        one = b.const(1.5, T.F32)
        x = b.convert(one, t.elem) if t.elem is not T.F32 else one
        return b.build([x] * t.n)

    d = b.mma(op_id, fragment(a_t), fragment(b_t), fragment(c_t))
    b.store(p, b.extract(d, 0))
    return b.finish()


def test_mma_on_every_arch_of_every_form():
    kernels = [
        mma_kernel(op_id, generation, arch)
        for (op_id, generation), form in sorted(FORMS.items())
        for arch in form.archs
    ]
    assert {archs.get(k.arch).generation for k in kernels} == {"gfx9", "gfx11", "gfx12", "gfx1250"}
    check_kernels(kernels)


def buffer_kernel(arch):
    b = KernelBuilder(f"buffer_{arch}", arch=arch, workgroup_size=(256, 1, 1))
    base, n = b.arg("base", T.GLOBAL), b.arg("n", T.I32)
    rsrc = b.buffer_rsrc(base, n)
    off = b.mul(b.thread_id(0), 16)
    for size in sorted(BUFFER_ACCESS):
        # One int and one float type of each access size the table has.
        for t in {
            1: (T.I8, T.F8E4M3),
            2: (T.I16, T.F16),
            4: (T.I32, T.F32),
            8: (T.I64, T.vector(T.F16, 4)),
            16: (T.vector(T.I32, 4), T.vector(T.F32, 4)),
        }[size]:
            b.buffer_store(rsrc, off, b.buffer_load(rsrc, off, t))
    b.barrier()
    return b.finish()


def test_buffer_ops_and_barriers_on_every_arch():
    kernels = [buffer_kernel(arch) for arch in sorted(archs.ARCHS)]
    assert "gfx1250" in {k.arch for k in kernels}
    results = check_kernels(kernels)
    # gfx12 and gfx1250 split the barrier; llvm20 refuses gfx1250.
    assert any("s.barrier.signal" in out for status, out in results if status == "ok")
    assert ["ArchDomainError", "flavor", "llvm20"] in [
        json.loads(out)[:3] for status, out in results if status == "ArchDomainError"
    ]


def test_wave64_on_a_wave32_arch_and_waves_per_eu():
    kernels = []
    for arch in ("gfx1100", "gfx1201", "gfx942"):
        info = archs.get(arch)
        for wave in info.wave_sizes:
            b = KernelBuilder(
                f"lanes_{arch}_{wave}",
                arch=arch,
                workgroup_size=(128, 2, 1),
                wave_size=wave,
                waves_per_eu=info.waves_per_eu[1],
            )
            out = b.arg("out", T.GLOBAL)
            lane = b.lane_id()
            b.store(out, b.add(lane, b.add(b.block_dim(1), b.grid_dim(2))))
            kernels.append(b.finish())
    check_kernels(kernels)


@pytest.mark.parametrize("generation", ["gfx9", "gfx11", "gfx12", "gfx1250"])
def test_gemm_example(generation):
    arch = next(a for a in sorted(archs.ARCHS) if archs.get(a).generation == generation)
    kernels = [gemm_kernel(arch, dtype)[0] for dtype in ("f16", "bf16")]
    check_kernels(kernels)


# -- errors -----------------------------------------------------------------------------

BAD_TEXT = [
    "",
    "kernel",
    "kernel @k() {",
    "kernel @k(%0: i32) {}",
    "kernel @k(%a: i33) {}",
    "kernel @k(%a: ptr<shared>) {}",
    "kernel @k(%a: vector<65xf16>) {}",
    "kernel @k(%a: vector<4xq>) {}",
    "kernel @k() {arch = 1.0} {}",
    "kernel @k() {arch = inf} {}",
    "kernel @k() {arch = 0x3ff0000000000000} {}",
    "kernel @k() {arch = 0x7FF0000000000001} {}",
    'kernel @k() {arch = "a\\41"} {}',
    'kernel @k() {arch = "a\\zz"} {}',
    'kernel @k() {arch = "a\\C3"} {}',
    'kernel @k() {arch = "a\tb"} {}',
    'kernel @k() {arch = "é"} {}',
    "kernel @k() {\n  %é = a.b() : i32\n}",
    'kernel @k() {arch = "é", x = 1.5} {}',
    "kernel\x1c@k()\u00a0{\u3000x\u2028=\x85} {}",
    "kernel @k() {a = 1, a = 2} {}",
    "kernel @k() {a = 123456789012345678901} {}",
    "kernel @k() {\n  %0 = arith.add(%1, %1) : i32\n}",
    "kernel @k() {\n  %0 = arith.const() {value = 1} : i32\n  %0 = arith.const() {value = 1} : i32\n}",
    "kernel @k() {\n  %0, %1 = x.y() : i32\n}",
    "kernel @k() {\n  x.y() $\n}",
    "kernel @k() {} trailing",
    "kernel @k() {a = " + "[" * 101 + "]" * 101 + "} {}",
    "kernel @k() {\n  // a comment\n  %0 = a.b() : i32 {\n  ^(%1: i32, %2: f16):\n  }\n} 1e5",
]


def test_parse_errors_match():
    expected = []
    for text in BAD_TEXT:
        try:
            kernel = parser.parse(text)
            expected.append(("ok", printer.print_kernel(kernel)))
        except parser.ParseError as e:
            expected.append(("ParseError", e))
    assert sum(status == "ParseError" for status, _ in expected) == len(BAD_TEXT)
    got = run_tool([("print", "-", text) for text in BAD_TEXT])
    for text, want, have in zip(BAD_TEXT, expected, got):
        check_reply(want, have, text)


# What a mutation may insert: every character the grammar uses, and some it does not.
MUTATION_CHARS = '%@(){}[],:=^<>"\\/-.0123456789xXeE_aAzZ \n\t\x1f\xa0\u2000#$é'


def mutate(rng, text):
    """`text` with one random edit: delete, insert, replace or repeat a span."""
    i = rng.randrange(len(text))
    j = min(len(text), i + rng.randint(1, 8))
    return rng.choice(
        (
            lambda: text[:i] + text[j:],
            lambda: text[:i] + rng.choice(MUTATION_CHARS) + text[i:],
            lambda: text[:i] + rng.choice(MUTATION_CHARS) + text[i + 1 :],
            lambda: text[:j] + text[i:],
        )
    )()


def python_parse(text):
    try:
        return "ok", printer.print_kernel(parser.parse(text))
    except parser.ParseError as e:
        return "ParseError", e


def check_reply(want, have, text):
    """rk_tool's reply `have` to print `text` against Python's outcome
    `want`: the same printed text, or a ParseError with the same facts."""
    if want[0] != "ParseError":
        assert have == want, text
        return
    assert have[0] == "ParseError", f"Python raises ParseError ({want[1]}), C++ answers {have[0]}: {text!r}"
    check_parity(want[1], json.loads(have[1]), repr(text))


def fits_int64(kernel):
    """Whether every int attribute fits in 64 bits (the C++ IR's ints; Python's are unbounded)."""

    def ints(value):
        if isinstance(value, list):
            return all(ints(v) for v in value)
        return not isinstance(value, int) or isinstance(value, bool) or -(1 << 63) <= value < 1 << 63

    return all(ints(v) for v in kernel.attrs.values()) and all(
        ints(v) for op in walk(kernel.body) for v in op.attrs.values()
    )


def test_mutated_text_parses_the_same():
    """One-edit mutations of printed kernels: the same kernel text back, or the same ParseError."""
    rng = random.Random(8)
    bases = [printer.print_kernel(kernel_gen.generate(kernel_gen.RandomChoices(seed)).kernel) for seed in range(40)]
    texts = []
    while len(texts) < 3000:
        text = mutate(rng, rng.choice(bases))
        try:
            if not fits_int64(parser.parse(text)):
                continue
        except parser.ParseError:
            pass
        texts.append(text)
    expected = [python_parse(text) for text in texts]
    # Both outcomes must be common, or the mutations test little.
    assert 300 < sum(status == "ok" for status, _ in expected) < 2700
    got = run_tool([("print", "-", text) for text in texts])
    for text, want, have in zip(texts, expected, got):
        check_reply(want, have, text)


def test_unknown_flavor():
    kernel = buffer_kernel("gfx942")
    want = python_lower(kernel, "llvm19")
    assert want[0] == "ArchDomainError"
    assert run_tool([("lower", "llvm19", printer.print_kernel(kernel))]) == [want]
