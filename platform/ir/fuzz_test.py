"""Property tests of the IR with hypothesis: round trips and failure modes.
(fuzz_llvm_test takes the same kernels through the real LLVM of each flavor.)"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ir import kernel_gen
from ir.core import VerifyError, walk
from ir.ops import OPS
from ir.parser import ParseError, parse
from ir.printer import print_kernel
from ir.strategies import cases, kernels, malformed_kernels
from ir.verifier import verify

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)


def test_the_generator_makes_every_op_of_the_registry():
    assert set(kernel_gen.MAKERS) | {"scf.yield"} == set(OPS)


def test_the_generator_without_faults_reaches_every_op_and_type():
    ops, types_ = set(), set()
    for seed in range(300):
        kernel = kernel_gen.generate(kernel_gen.RandomChoices(seed)).kernel
        for op in walk(kernel.body):
            ops.add(op.name)
            types_ |= {str(v.type) for v in op.results}
    assert ops == set(OPS)
    assert {str(t) for t in kernel_gen.SCALARS} <= types_
    assert {f"vector<{n}x{t}>" for n in (2, 64) for t in kernel_gen.SCALARS} <= types_


@SETTINGS
@given(kernels())
def test_well_formed_kernels_round_trip(kernel):
    text = print_kernel(kernel)
    again = parse(text)
    verify(again)
    assert print_kernel(again) == text


@SETTINGS
@given(cases())
def test_a_faulty_kernel_fails_with_one_clear_verify_error(case):
    if case.kernel is not None:
        verify(case.kernel)
    else:
        message = str(case.error)
        assert ": expected " in message and ", got " in message, message


@SETTINGS
@given(malformed_kernels())
def test_malformed_kernels_raise_verify_error(case):
    kernel, mutation = case
    try:
        verify(kernel)
    except VerifyError as e:
        assert ": expected " in str(e) and ", got " in str(e), str(e)
    else:
        raise AssertionError(f"mutation {mutation} was not caught:\n{print_kernel(kernel)}")


@SETTINGS
@given(st.text(max_size=200))
def test_random_text_raises_parse_error_with_position(text):
    try:
        parse(text)
    except ParseError as e:
        assert e.line >= 1 and e.column >= 1
        assert str(e).startswith(f"line {e.line}, column {e.column}: ")
    else:
        raise AssertionError(f"random text parsed: {text!r}")


@SETTINGS
@given(kernels(), st.data())
def test_damaged_text_fails_only_with_parse_or_verify_error(kernel, data):
    text = print_kernel(kernel)
    at = data.draw(st.integers(0, len(text) - 1))
    damaged = text[:at] + data.draw(st.sampled_from(["", "%", "{", ")", "x", ",", "9", '"'])) + text[at + 1 :]
    try:
        verify(parse(damaged))
    except ParseError, VerifyError:
        pass
