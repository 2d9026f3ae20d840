"""rocke_engine, the core C++ engine as a Python module, against the Python engine.

Random kernels of every op (kernel_gen) are printed by Python and handed to
C++ as .rk text: C++ must print them back and lower them for every flavor
to the very bytes Python makes, and refuse what Python refuses with the
same class and message.
"""

import pytest

import rocke_engine
from arch.flavor_facts import FLAVORS
from ir import kernel_gen
from ir.core import VerifyError
from ir.printer import print_kernel
from lower.flavors import ArchDomainError
from lower.llvm import lower

SEEDS = range(60)


def _kernels():
    for seed in SEEDS:
        case = kernel_gen.generate(kernel_gen.RandomChoices(seed), faults=0)
        assert case.kernel is not None, f"seed {seed}: faults=0 must give a verified kernel"
        yield seed, case.kernel


def _python(kernel, flavor):
    try:
        return lower(kernel, flavor), None
    except ArchDomainError as e:
        return None, e.facts()


def test_cpp_prints_and_lowers_what_python_does():
    compared = 0
    for seed, kernel in _kernels():
        text = print_kernel(kernel)
        assert rocke_engine.print_rk(text) == text, f"seed {seed}"
        for flavor in FLAVORS:
            want, refused = _python(kernel, flavor)
            if refused is None:
                assert rocke_engine.lower(text, flavor) == want, f"seed {seed}, {flavor}"
            else:
                with pytest.raises(ArchDomainError) as got:
                    rocke_engine.lower(text, flavor)
                # The same class, field, value and allowed values; each engine words its own message.
                assert got.value.facts() == refused, f"seed {seed}, {flavor}"
                assert f"is not known to {flavor}" in str(got.value), f"seed {seed}, {flavor}"
            compared += 1
    assert compared == len(SEEDS) * len(FLAVORS)


BAD_ADD = """kernel @k(%x: i32) {arch = "gfx942", wave_size = 64, workgroup_size = [64, 1, 1]} {
  %0 = arith.const() {value = 0x3FF0000000000000} : f32
  %1 = arith.add(%x, %0) : i32
}
"""


def test_a_verifier_failure_is_the_python_class_and_message():
    with pytest.raises(VerifyError) as got:
        rocke_engine.lower(BAD_ADD, "llvm23")
    assert str(got.value) == "arith.add: expected operands and result of one type, got i32, f32, i32"


def test_unknown_flavor_is_arch_domain_error_with_pythons_facts():
    text = print_kernel(next(_kernels())[1])
    with pytest.raises(ArchDomainError) as got:
        rocke_engine.lower(text, "llvm19")
    with pytest.raises(ArchDomainError) as want:
        lower(next(_kernels())[1], "llvm19")
    assert (
        got.value.facts()
        == want.value.facts()
        == [
            "ArchDomainError",
            "flavor",
            "llvm19",
            ["llvm20", "llvm22", "llvm23", "llvm24"],
        ]
    )
    assert str(got.value) == 'flavor: expected one of llvm20, llvm22, llvm23, llvm24, got "llvm19"'
