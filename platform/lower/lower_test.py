"""The lowering without LLVM: determinism, flavor rows, domain errors."""

import hashlib
import os
import re
import subprocess
import sys

import pytest

from ir import types as T
from ir.builder import KernelBuilder
from ir.core import VerifyError
from lower import flavors
from lower.flavors import ArchDomainError
from lower.llvm import lower, lower_each
from tile.gemm_example import gemm_kernel


def tiny(arch, wave_size=None):
    b = KernelBuilder("tiny", arch=arch, workgroup_size=(64, 1, 1), wave_size=wave_size)
    out = b.arg("out", T.GLOBAL)
    b.barrier()
    r = b.buffer_rsrc(out, 256)
    b.buffer_store(r, b.mul(b.thread_id(0), 4), b.convert(b.lane_id(), T.F32))
    return b.finish()


_SCRIPT = """
import hashlib
from lower.llvm import lower
from tile.gemm_example import gemm_kernel
print(hashlib.sha256(lower(gemm_kernel("gfx942", "f16")[0], "llvm22").encode()).hexdigest())
"""


def test_same_bytes_whatever_the_hash_seed():
    digests = set()
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, check=True)
        digests.add(out.stdout.strip())
    here = hashlib.sha256(lower(gemm_kernel("gfx942", "f16")[0], "llvm22").encode()).hexdigest()
    assert digests == {here}


@pytest.mark.parametrize(
    "flavor,arch,triple",
    [
        ("llvm20", "gfx942", "amdgcn-amd-amdhsa"),
        ("llvm23", "gfx1201", "amdgcn-amd-amdhsa"),
        ("llvm24", "gfx950", "amdgpu9.50-amd-amdhsa"),
        ("llvm24", "gfx90a", "amdgpu9.0a-amd-amdhsa"),
        ("llvm24", "gfx1250", "amdgpu12.50-amd-amdhsa"),
    ],
)
def test_triple(flavor, arch, triple):
    assert f'target triple = "{triple}"' in lower(tiny(arch), flavor)


def test_lower_each_is_lower_per_flavor_with_its_refusals():
    kernel = tiny("gfx1250")
    outs = lower_each(kernel, ["llvm20", "llvm22", "llvm24"])
    assert list(outs) == ["llvm20", "llvm22", "llvm24"]
    for flavor in ("llvm22", "llvm24"):
        assert outs[flavor] == lower(kernel, flavor)
    with pytest.raises(ArchDomainError) as e:
        lower(kernel, "llvm20")
    assert isinstance(outs["llvm20"], ArchDomainError) and str(outs["llvm20"]) == str(e.value)
    with pytest.raises(ArchDomainError, match="flavor: expected one of llvm20, llvm22, llvm23, llvm24, got 'llvm21'"):
        lower_each(kernel, ["llvm22", "llvm21"])


def test_lower_each_of_a_verified_kernel_skips_only_the_verification():
    kernel = tiny("gfx1250")
    assert {f: str(t) for f, t in lower_each(kernel, ["llvm20", "llvm23"], verified=True).items()} == {
        f: str(t) for f, t in lower_each(kernel, ["llvm20", "llvm23"]).items()
    }
    # The promise is the caller's: a kernel changed after finish() is caught only by the default.
    kernel.body.ops.insert(0, kernel.body.ops[-1])  # the store again, first: it uses values not defined yet
    with pytest.raises(VerifyError):
        lower_each(kernel, ["llvm23"])


def test_buffer_resource_spelling_per_flavor():
    assert "@llvm.amdgcn.make.buffer.rsrc.p1(ptr addrspace(1) %arg.out, i16 0, i32 256," in lower(
        tiny("gfx942"), "llvm20"
    )
    assert "@llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %arg.out, i16 0, i64 " in lower(
        tiny("gfx942"), "llvm22"
    )
    assert "@llvm.amdgcn.make.buffer.rsrc.p8.p1.i64(" in lower(tiny("gfx942"), "llvm24")


@pytest.mark.parametrize("arch,split", [("gfx942", False), ("gfx1100", False), ("gfx1201", True), ("gfx1250", True)])
def test_split_barrier_only_from_gfx12(arch, split):
    text = lower(tiny(arch), "llvm23")
    assert ("@llvm.amdgcn.s.barrier.signal" in text) == split
    assert ("@llvm.amdgcn.s.barrier()" in text) == (not split)


def test_wave64_feature_only_where_asked():
    assert "+wavefrontsize64" in lower(tiny("gfx1201", wave_size=64), "llvm22")
    assert "+wavefrontsize64" not in lower(tiny("gfx1201"), "llvm22")
    assert "+wavefrontsize64" not in lower(tiny("gfx942"), "llvm22")


def test_gfx1250_never_gets_wave64():
    with pytest.raises(ValueError, match="expected a wave size of gfx1250 \\(32\\), got 64"):
        tiny("gfx1250", wave_size=64)


def test_unknown_arch_for_flavor_raises_before_llvm():
    with pytest.raises(ArchDomainError) as err:
        lower(tiny("gfx1250"), "llvm20")
    message = str(err.value)
    assert "gfx1250 is not known to llvm20" in message
    assert "llvm22, llvm23, llvm24" in message
    assert "kernel @tiny" in message


def test_fp8_mma_lowers_with_packed_operands():
    b = KernelBuilder("fp8", arch="gfx950", workgroup_size=(64, 1, 1))
    p = b.arg("p", T.GLOBAL)
    a = b.load(p, T.vector(T.F8E4M3, 8))
    c = b.load(p, T.vector(T.F32, 4))
    b.mma("mma_16x16x32_fp8_f32", a, a, c)
    kernel = b.finish()
    text = lower(kernel, "llvm22")
    assert "@llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8(i64 " in text
    assert "bitcast <8 x i8> " in text


def _loops(with_matrix):
    """A kernel of three loops; the first (through an if) and the third hold a matrix op where `with_matrix`."""
    b = KernelBuilder("loops", arch="gfx942", workgroup_size=(64, 1, 1))
    p, n = b.arg("p", T.GLOBAL), b.arg("n", T.I32)
    a, c = b.load(p, T.vector(T.F16, 4)), b.load(p, T.vector(T.F32, 4))
    with b.for_range(0, n, 1, [c]) as first:
        arms = b.if_(b.cmp("gt", first.iv, 2), [c.type])
        with arms.then_():
            b.yield_(b.mma("mma_16x16x16_f16_f32", a, a, first.iters[0]) if with_matrix else first.iters[0])
        with arms.else_():
            b.yield_(first.iters[0])
        b.yield_(*arms.results)
    with b.for_range(0, n, 1, [first.results[0]]) as plain:
        b.yield_(b.add(plain.iters[0], plain.iters[0]))
    with b.for_range(0, n, 1, [plain.results[0]]) as third:
        b.yield_(b.mma("mma_16x16x16_f16_f32", a, a, third.iters[0]) if with_matrix else third.iters[0])
    b.store(p, third.results[0])
    return lower(b.finish(), "llvm23")


def test_only_a_loop_holding_a_matrix_op_is_kept_from_unrolling():
    text = _loops(with_matrix=True)
    back_edges = re.findall(r"  br label %for\.head\d+(.*)\n(?=for\.exit)", text)  # each loop's latch, in order
    assert back_edges == [", !llvm.loop !3", "", ", !llvm.loop !4"], back_edges
    assert text.endswith('!2 = !{!"llvm.loop.unroll.disable"}\n!3 = distinct !{!3, !2}\n!4 = distinct !{!4, !2}\n'), (
        text[-200:]
    )
    assert "llvm.loop" not in _loops(with_matrix=False)


def test_every_matrix_op_of_every_arch_has_an_intrinsic():
    from arch import arch as archs
    from lower.intrinsics import MMA

    for info in archs.ARCHS.values():
        for m in info.matrix:
            assert (m.op, info.generation) in MMA, (info.name, m.op)


def test_the_mma_table_is_the_forms_and_gfx1250_wmma_has_one_operand_form_per_llvm():
    # The operand count each LLVM declares is stated once, as the per-flavor
    # form in mma_forms.json; conformance_test probes the f16 op against the
    # real LLVMs, and the bf16 op must follow it.
    from arch.mma_forms import FORMS
    from lower.intrinsics import MMA

    assert set(MMA) == set(FORMS)
    wmma = [key for key in FORMS if key[1] == "gfx1250"]
    assert len(wmma) == 2
    got = {flavor: {MMA[key].for_flavor(flavor).form for key in wmma} for flavor in flavors.supporting("gfx1250")}
    assert len(got) == 3 and all(len(forms) == 1 and forms <= {"wmma6", "wmma8"} for forms in got.values()), got


def _declared(arch, flavor):
    from lower.coverage import corpus

    return {m for k in corpus(arch) for m in re.findall(r"^declare .*? @([\w.]+)\(", lower(k, flavor), re.M)}


def test_every_intrinsic_called_is_spelled_by_the_data_files():
    # Each declared name comes from one table of flavor_facts.json,
    # mma_forms.json or lds_ops.json (none is written in llvm.py), and every
    # "intrinsics" entry is called by the coverage corpus somewhere (none is dead).
    from arch import arch as archs
    from arch.flavor_facts import FLAVORS, IDS, INTRINSICS
    from arch.lds_ops import LDS_OPS
    from lower.intrinsics import MMA

    # mem.load_transpose's intrinsic takes its result type as a suffix; mem.load_to_lds's none.
    lds = {op.intrinsic for op in LDS_OPS.values()}
    stems = {i.name for i in INTRINSICS.values() if i.overloaded}
    plain = {i.name for i in INTRINSICS.values() if not i.overloaded}
    used = set()
    for arch in sorted(archs.ARCHS):
        flavor = flavors.supporting(arch)[-1]
        tables = plain | set(IDS["workitem"]) | set(IDS["workgroup"]) | {FLAVORS[flavor].rsrc_intrinsic}
        tables |= {
            form.for_flavor(flavor).intrinsic for key, form in MMA.items() if key[1] == archs.get(arch).generation
        }
        for name in _declared(arch, flavor):
            stem = name.rsplit(".", 1)[0]
            assert name in tables | lds or stem in stems | lds, (
                f"{name} ({arch}, {flavor}) is spelled outside the data files"
            )
            used.add(name if name in plain else stem)
    assert used >= plain | stems, sorted((plain | stems) - used)


def test_spell_checks_the_form():
    from lower.intrinsics import spell

    assert spell("buffer_store", "v4i32") == "llvm.amdgcn.raw.ptr.buffer.store.v4i32"
    assert spell("mbcnt_hi") == "llvm.amdgcn.mbcnt.hi"
    with pytest.raises(ValueError, match=r"^intrinsic 'fma' \(llvm.fma\): expected an overload suffix, got None$"):
        spell("fma")
    with pytest.raises(
        ValueError, match=r"^intrinsic 'bpermute' \(llvm.amdgcn.ds.bpermute\): expected no overload suffix, got 'i32'$"
    ):
        spell("bpermute", "i32")
    with pytest.raises(
        LookupError, match=r"flavor_facts.json: intrinsics: expected an entry 's_sleep', got none; add it"
    ):
        spell("s_sleep")


def test_unknown_flavor():
    with pytest.raises(ArchDomainError, match="expected one of llvm20, llvm22, llvm23, llvm24, got 'llvm21'"):
        lower(tiny("gfx942"), "llvm21")


def test_flavor_cpus_agree_with_the_arch_table():
    from arch import arch as archs

    for name, info in archs.ARCHS.items():
        assert set(info.flavors) == set(flavors.supporting(name)), name


def test_globals_are_named_by_what_they_are_and_ordered_by_kind_then_key():
    # An fp8 table made first, then 12 LDS allocations: each LDS global is
    # numbered among LDS allocations only, in program order (not by a counter
    # shared with the tables), and .10 comes after .9 (not sorted as text).
    b = KernelBuilder("globals", arch="gfx942", workgroup_size=(64, 1, 1))
    p = b.arg("p", T.GLOBAL)
    x = b.convert(b.load(p, T.F8E5M2), T.F32)
    y = b.convert(b.load(p, T.F8E4M3), T.F32)
    for i in range(12):
        b.store(b.lds_alloc(16 + i * 16), b.add(x, y))
    text = lower(b.finish(), "llvm22")
    names = [line.split(" = ", 1)[0] for line in text.splitlines() if line.startswith("@")]
    assert names == [f"@rocke.lds.{i}" for i in range(12)] + ["@rocke.f8e4m3.values", "@rocke.f8e5m2.values"]
    assert "@rocke.lds.11 = internal addrspace(3) global [192 x i8] poison, align 16" in text


def test_float_constants_have_one_spelling_per_type():
    b = KernelBuilder("floats", arch="gfx942", workgroup_size=(64, 1, 1))
    p = b.arg("p", T.GLOBAL)
    b.store(p, b.add(b.load(p, T.F32), b.const(0.1, T.F32)))
    b.store(p, b.add(b.load(p, T.F16), b.const(1.0, T.F16)))
    b.store(p, b.add(b.load(p, T.BF16), b.const(-2.0, T.BF16)))
    b.store(p, b.convert(b.load(p, T.F32), T.F8E4M3))
    text = lower(b.finish(), "llvm22")
    assert "fadd float %v0, 0x3FB99999A0000000" in text  # 0.1 rounded to f32, as the equal double's bits
    assert re.search(r"fadd half %v\d+, 0xH3C00\n", text) and re.search(r"fadd bfloat %v\d+, 0xRC000\n", text)
    # No decimal float anywhere (the fp8 encoder's NaN test included).
    assert not re.search(r"\b\d+\.\d", text), re.search(r".*\b\d+\.\d.*", text).group()


def _barriers(arch, *kinds):
    b = KernelBuilder("barriers", arch=arch, workgroup_size=(64, 1, 1))
    for kind in kinds:
        getattr(b, kind)()
    return lower(b.finish(), "llvm23")


@pytest.mark.parametrize("arch", ["gfx942", "gfx1201"])
def test_lds_barrier_fences_synchronize_lds_only(arch):
    text = _barriers(arch, "lds_barrier")
    fences = re.findall(r"^  fence .*$", text, re.M)
    assert fences == [
        '  fence syncscope("workgroup") release, !mmra !1',
        '  fence syncscope("workgroup") acquire, !mmra !1',
    ], fences
    assert text.endswith(
        '!0 = !{i32 1, !"amdhsa_code_object_version", i32 600}\n!1 = !{!"amdgpu-synchronize-as", !"local"}\n'
    )


def test_the_lds_only_node_is_emitted_only_when_a_fence_uses_it():
    text = _barriers("gfx1201", "barrier", "sched_barrier")
    assert "!mmra" not in text and "amdgpu-synchronize-as" not in text
    assert "  call void @llvm.amdgcn.sched.barrier(i32 0)\n" in text


def _lds_ops(arch):
    b = KernelBuilder("lds_ops", arch=arch, workgroup_size=(64, 1, 1))
    src = b.arg("src", T.GLOBAL)
    lds = b.lds_alloc(1024)
    b.load_to_lds(b.offset(src, b.mul(b.thread_id(0), 16)), lds)
    b.barrier()
    b.store(src, b.load_transpose(b.offset(lds, b.mul(b.thread_id(0), 8)), T.BF16))
    return b.finish()


def _buffer_to_lds(arch):
    b = KernelBuilder("buffer_to_lds", arch=arch, workgroup_size=(64, 1, 1))
    src, k = b.arg("src", T.GLOBAL), b.arg("k", T.I32)
    b.buffer_load_to_lds(b.buffer_rsrc(src, 4096), b.mul(b.thread_id(0), 16), k, b.lds_alloc(1024))
    b.barrier()
    return b.finish()


@pytest.mark.parametrize("flavor", flavors.FLAVORS)
def test_buffer_load_to_lds_takes_the_lane_offset_then_the_wave_offset(flavor):
    # llvm.amdgcn.raw.ptr.buffer.load.lds(rsrc, lds, size, voffset, soffset, offset, aux); its barriers wait as mem.load_to_lds's.
    text = lower(_buffer_to_lds("gfx950"), flavor)
    assert re.search(
        r"call void @llvm\.amdgcn\.raw\.ptr\.buffer\.load\.lds\(ptr addrspace\(8\) %v\d+, ptr addrspace\(3\) @rocke\.lds\.0, i32 16, i32 %v\d+, i32 %arg\.k, i32 0, i32 0\)",
        text,
    ), text
    assert "  call void @llvm.amdgcn.s.waitcnt(i32 3952)\n" in text
    with pytest.raises(
        ArchDomainError,
        match=r"^buffer.load_to_lds: no instruction for llvm.amdgcn.raw.ptr.buffer.load.lds on gfx942 with " + flavor,
    ):
        lower(_buffer_to_lds("gfx942"), flavor)


@pytest.mark.parametrize("flavor", flavors.FLAVORS)
def test_gfx950_memory_ops_lower_to_their_intrinsics(flavor):
    text = lower(_lds_ops("gfx950"), flavor)
    assert (
        "call void @llvm.amdgcn.global.load.lds(ptr addrspace(1) %v2, ptr addrspace(3) @rocke.lds.0, i32 16, i32 0, i32 0)"
        in text
    )
    assert re.search(
        r"= call <4 x bfloat> @llvm\.amdgcn\.ds\.read\.tr16\.b64\.v4bf16\(ptr addrspace\(3\) %v\d+\)", text
    )


@pytest.mark.parametrize("flavor", flavors.FLAVORS)
def test_a_barrier_waits_for_the_kernels_direct_loads(flavor):
    # mem.load_to_lds writes LDS asynchronously: every barrier of a kernel
    # with one starts with s_waitcnt vmcnt(0) (arch/lds_ops.py: LLVM 20 puts
    # none there by itself); a kernel without one gets no such wait.
    wait = '  call void @llvm.amdgcn.s.waitcnt(i32 3952)\n  fence syncscope("workgroup") release\n'
    assert wait in lower(_lds_ops("gfx950"), flavor)
    assert "s.waitcnt" not in _barriers("gfx950", "barrier", "barrier")


@pytest.mark.parametrize("arch", ["gfx942", "gfx1201", "gfx1250"])
def test_memory_ops_an_arch_lacks_are_refused_before_llvm(arch):
    # LLVM itself would abort ("Cannot select") on these archs.
    with pytest.raises(
        ArchDomainError,
        match=rf"^mem.load_to_lds: no instruction for llvm.amdgcn.global.load.lds on {arch} with llvm23; supported on: gfx950\. Choose a supported arch",
    ):
        lower(_lds_ops(arch), "llvm23")


def test_nnan_max_carries_the_flag_and_a_plain_max_does_not():
    b = KernelBuilder("maxes", arch="gfx942", workgroup_size=(64, 1, 1))
    out = b.arg("out", T.GLOBAL)
    x = b.convert(b.lane_id(), T.F32)
    b.store(out, b.add(b.max_nnan(x, 1.0), b.max(x, 2.0)))
    text = lower(b.finish(), "llvm23")
    calls = re.findall(r"= call (?:nnan )?float @llvm\.maxnum\.f32\(float %\w+, float [^)]+\)", text)
    assert [c.split(" float @")[0].split("= ")[1] for c in calls] == ["call nnan", "call"], calls
