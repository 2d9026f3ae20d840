"""The dispatch's own logic: engine names, and how a mismatch is reported.

The engines themselves are compared on every case of each family by its
NAME_engines test (library/family.bzl; platform code cannot see the
library's module).
"""

import pytest

from family import engines
from family.engines import Emitted, EngineMismatch

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


def test_unknown_engine_is_refused():
    with pytest.raises(ValueError) as e:
        engines.lower_family(None, None, "llvm23", engine="rust")
    assert str(e.value) == "lower_family: expected engine to be one of python, cpp, both, got 'rust'"


def test_cpp_without_the_module_says_what_to_pass():
    for engine in ("cpp", "both"):
        with pytest.raises(ValueError) as e:
            engines.lower_family(type("F", (), {"name": "f"}), None, "llvm23", engine=engine)
        assert str(e.value) == (
            f'lower_family: engine="{engine}" needs the C++ engine, got cpp=None; '
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
