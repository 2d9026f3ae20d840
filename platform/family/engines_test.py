"""The dispatch's own logic: engine names, and how a mismatch is reported.

The engines themselves are compared on every case of each family by its
NAME_engines test (library/family.bzl; platform code cannot see the
library's module).
"""

import pytest

from family import engines
from family.engines import Emitted, EngineMismatch
from ir import types as T
from ir.builder import KernelBuilder
from ir.printer import print_kernel
from lower.flavors import ArchDomainError
from lower.llvm import lower

RK = "kernel @k() {\n  %0 = gpu.lane_id() : i32\n}\n"
LL = "define void @k() {\nentry:\n  ret void\n}\n"


def test_identical_outputs_pass():
    engines.compare("c1", Emitted(RK, LL, "k"), Emitted(RK, LL, "k"))


def test_rk_difference_names_case_line_and_the_builders():
    cpp = Emitted(RK.replace("lane_id", "thread_id"), LL, "k")
    with pytest.raises(EngineMismatch) as e:
        engines.compare("c1", Emitted(RK, LL, "k"), cpp)
    assert str(e.value) == (
        "case c1: Python and C++ differ in the .rk text (the builders differ) at line 2:\n"
        "  python:   %0 = gpu.lane_id() : i32\n"
        "  c++:      %0 = gpu.thread_id() : i32"
    )


def test_ll_difference_names_the_lowerings():
    with pytest.raises(EngineMismatch) as e:
        engines.compare("c2", Emitted(RK, LL, "k"), Emitted(RK, LL + "; extra\n", "k"))
    assert str(e.value) == (
        "case c2: Python and C++ differ in the LLVM IR (the lowerings differ) at line 5:\n  python: <end of text>\n  c++:    ; extra"
    )


def test_a_missing_final_newline_is_a_difference():
    with pytest.raises(EngineMismatch, match="at line 5"):
        engines.compare("c3", Emitted(RK, LL, "k"), Emitted(RK, LL[:-1], "k"))


# Each function's refusal names that function: the one its caller called.
LOWERS = [
    ("lower_family", lambda fam, engine: engines.lower_family(fam, None, "llvm23", engine=engine)),
    ("lower_flavors", lambda fam, engine: engines.lower_flavors(fam, None, ["llvm23"], engine=engine)),
]


@pytest.mark.parametrize("function,lower", LOWERS)
def test_unknown_engine_is_refused(function, lower):
    with pytest.raises(ValueError) as e:
        lower(None, "rust")
    assert str(e.value) == f"{function}: expected engine to be one of python, cpp, both, got 'rust'"


@pytest.mark.parametrize("function,lower", LOWERS)
def test_cpp_without_the_module_says_what_to_pass(function, lower):
    for engine in ("cpp", "both"):
        with pytest.raises(ValueError) as e:
            lower(type("F", (), {"name": "f"}), engine)
        assert str(e.value) == (
            f'{function}: engine="{engine}" needs the C++ engine, got cpp=None; '
            "import rocke_library_engine (//library/engine:engine) and pass it as cpp="
        )


def test_cpp_engine_is_the_module_passed_in():
    class Case:
        id, arch = "c1", "gfx942"

        class spec:
            @staticmethod
            def to_json():
                return {"m": 1}

    class Engine:
        @staticmethod
        def emit(name, case_json, flavor):
            return f"rk {name} {flavor}", case_json, "f_c1"

    out = engines.lower_family(type("F", (), {"name": "f"}), Case, "llvm22", engine="cpp", cpp=Engine)
    assert out == Emitted("rk f llvm22", '{"arch":"gfx942","id":"c1","spec":{"m":1}}', "f_c1")


def _tiny_family():
    """A family of one gfx1250 kernel (llvm20 does not know gfx1250), counting its builds."""

    class Family:
        name, builds = "tiny", 0

        @classmethod
        def build(cls, case):
            cls.builds += 1
            b = KernelBuilder("tiny", arch=case.arch, workgroup_size=(64, 1, 1))
            out = b.arg("out", T.GLOBAL)
            b.buffer_store(b.buffer_rsrc(out, 256), b.mul(b.thread_id(0), 4), b.convert(b.lane_id(), T.F32))
            return b.finish()

    class Case:
        id, arch = "c1", "gfx1250"

        class spec:
            @staticmethod
            def to_json():
                return {"m": 1}

    return Family, Case


def test_python_engine_builds_once_for_every_flavor_and_refuses_per_flavor():
    fam, case = _tiny_family()
    outs = engines.lower_flavors(fam, case, ["llvm20", "llvm22", "llvm24"])
    assert fam.builds == 1
    kernel = fam.build(case)
    assert isinstance(outs["llvm20"], ArchDomainError)
    assert "gfx1250 is not known to llvm20" in str(outs["llvm20"])
    for flavor in ("llvm22", "llvm24"):
        assert outs[flavor] == Emitted(print_kernel(kernel), lower(kernel, flavor), "tiny")
    with pytest.raises(ArchDomainError, match="gfx1250 is not known to llvm20"):
        engines.lower_family(fam, case, "llvm20")


def _cpp_engine(refuse):
    """A C++ engine stand-in: the Python engine's bytes, and refuse(flavor) -> an error to raise, or None."""
    fam, case = _tiny_family()
    python = engines.lower_flavors(fam, case, ["llvm20", "llvm22", "llvm24"])

    class Engine:
        @staticmethod
        def emit(name, case_json, flavor):
            error = refuse(flavor)
            if error is not None:
                raise error
            out = python[flavor]
            return out.rk, out.ll, out.name

    return Engine


def test_both_engines_refusing_alike_is_agreement():
    fam, case = _tiny_family()
    py_refusal = engines.lower_flavors(fam, case, ["llvm20"])["llvm20"]
    cpp = _cpp_engine(lambda f: ArchDomainError("c++ words", *py_refusal.facts()[1:]) if f == "llvm20" else None)
    outs = engines.lower_flavors(fam, case, ["llvm20", "llvm22"], engine="both", cpp=cpp)
    assert isinstance(outs["llvm20"], ArchDomainError) and isinstance(outs["llvm22"], Emitted)


def test_only_one_engine_refusing_is_a_mismatch():
    fam, case = _tiny_family()
    cpp = _cpp_engine(lambda f: ArchDomainError("no", "flavor", f, []) if f == "llvm22" else None)
    with pytest.raises(EngineMismatch, match="^case c1, llvm22: only C\\+\\+ refuses it: no$"):
        engines.lower_flavors(fam, case, ["llvm22", "llvm24"], engine="both", cpp=cpp)
    python_only = _cpp_engine(lambda f: None)
    python_only.emit = staticmethod(lambda name, case_json, flavor: ("rk", "ll", "tiny"))
    with pytest.raises(EngineMismatch, match="^case c1, llvm20: only Python refuses it: "):
        engines.lower_flavors(fam, case, ["llvm20"], engine="both", cpp=python_only)


def test_refusals_with_different_facts_are_a_mismatch():
    fam, case = _tiny_family()
    cpp = _cpp_engine(lambda f: ArchDomainError("no", "arch", "gfx1250", []) if f == "llvm20" else None)
    with pytest.raises(EngineMismatch) as e:
        engines.lower_flavors(fam, case, ["llvm20"], engine="both", cpp=cpp)
    assert str(e.value).startswith(
        "case c1, llvm20: both engines refuse it, with different facts:\n"
        "  python: ['ArchDomainError', 'flavor', 'llvm20', ['llvm22', 'llvm23', 'llvm24']]\n"
        "  c++:    ['ArchDomainError', 'arch', 'gfx1250', []]"
    )
