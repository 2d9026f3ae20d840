"""compile_bench's comparisons on made-up figures, with no compiler run: each
of our kernels is set beside the Triton kernel compiled right after it, and
the ratios are ours over Triton's medians."""

import pytest

from app.bench import compile_bench


class FakeToolchain:
    def __init__(self, flavor):
        self.flavor = flavor


class FakeTriton:
    """Answers each request with a wall of 4 s (8 s causal) and a CPU of 2 s."""

    version = "3.9.0"

    def __init__(self):
        self.requests = []

    def compile(self, request):
        self.requests.append(request)
        return {"wall": 8.0 if request.get("causal") else 4.0, "cpu": 2.0, "launch": f"launch of {request['arch']}"}


def fake_build(tc, kernel, engine="cpp"):
    """1 s of wall (0.2 lower, 0.7 compile, 0.1 link) and 0.5 s CPU (LLVM's 0.3 of it); 3 s of wall on llvm20."""
    scale = 3.0 if tc.flavor == "llvm20" else 1.0
    stages = {"lower": 0.2 * scale, "compile": 0.7 * scale, "link": 0.1 * scale}
    return {**stages, "cpu": 0.5, "parse": 0.01, "o2": 0.14, "codegen": 0.15}


@pytest.fixture
def faked(monkeypatch):
    monkeypatch.setattr(compile_bench, "build", fake_build)


class Args:
    kernels = 24


def test_attention_kernels_are_issue_20s_variants():
    kernels = compile_bench.attention_kernels()
    variants = {(k.case.arch, k.case.spec.head_dim, k.case.spec.causal) for k in kernels}
    assert variants == {
        (arch, d, causal) for arch in ("gfx942", "gfx950", "gfx1201") for d in (64, 128) for causal in (False, True)
    }
    for k in kernels:
        assert (k.triton["arch"], k.triton["head_dim"], k.triton["causal"]) == (
            k.case.arch,
            k.case.spec.head_dim,
            k.case.spec.causal,
        )


def test_warm_puts_the_same_variant_of_triton_beside_each_of_ours(faked):
    kernels = compile_bench.attention_kernels()
    triton = FakeTriton()
    runs = compile_bench.warm(FakeToolchain("llvm23"), kernels, 5, "cpp", triton)
    assert [k for k, _, _ in runs] == kernels[:5]
    assert triton.requests == [k.triton for k in kernels[:5]]


def test_attention_table_ratios_per_variant_and_flavor(faked):
    kernels = compile_bench.attention_kernels()
    toolchains = [(FakeToolchain("llvm20"), "a"), (FakeToolchain("llvm23"), "b")]
    lines = compile_bench.compare_attention(Args(), toolchains, kernels, FakeTriton())
    rows = {line.split(" | ")[0].lstrip("| "): line for line in lines if line.startswith("| gfx")}
    assert len(rows) == 12
    # Not causal: 1 s (3 s on llvm20) beside Triton's 4 s; CPU 0.5 s beside 2 s.
    assert "| 3.000 s (0.75x / 0.25x) | 1.000 s (0.25x / 0.25x) |" in rows["gfx942, d64"]
    # Causal: beside Triton's 8 s.
    assert "| 3.000 s (0.38x / 0.25x) | 1.000 s (0.12x / 0.25x) |" in rows["gfx1201, d128, causal"]
    assert "launch of gfx1201" in rows["gfx1201, d128, causal"]
    flavors = [line for line in lines if line.startswith("| llvm")]
    assert [line.split(" | ")[0] for line in flavors] == ["| llvm20", "| llvm23"]
    # Over all variants Triton's median is 6 s (4 s and 8 s equally often).
    assert "| 0.17x / 0.25x |" in flavors[1]


def test_gemm_kernels_are_the_128x128x32_cases():
    kernels = compile_bench.gemm_kernels()
    assert [k.case.id for k in kernels] == [f"gemm_f16_128x128x32_{a}" for a in ("gfx942", "gfx950", "gfx1201")]
    assert [k.triton for k in kernels] == [{"kernel": "gemm", "arch": a} for a in ("gfx942", "gfx950", "gfx1201")]
