"""The numeric gate (numeric_test.py) as rocke_family runs it (through
py_pytest's runner, as `bazel test` does), on a toy family: a case whose
numbers match passes, a case the family refuses is recorded as an expected
rejection (as the emit gate records it) that the test log and Bazel's
test.xml both show, and a case with wrong numbers (one f16 element 4 ulps
off included) or a builder that breaks fails, naming the case."""

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
GATE = os.path.join(HERE, "numeric_test.py")
# The entry point of every py_pytest target (a source of this one too).
RUNNER = os.path.join(HERE, "..", "..", "toolchains", "python", "pytest_main.py")

_TOY = '''
import numpy as np

from family.bound import Expected
from family.family import Case, Family, NumericCheck, Refusal
from ir import types as T
from ir.builder import KernelBuilder


class ToyRefusal(Refusal):
    """A workgroup the toy family does not take."""


def build(case):
    if case.spec == "copy_f16":
        return _copy_f16(case)
    lanes, _ = case.spec
    if lanes > 1024:
        raise ToyRefusal(f"toy: lanes={lanes} is more than a workgroup's 1024; no family takes it")
    if lanes == 0:
        raise ZeroDivisionError("a builder's bug")
    b = KernelBuilder("toy_" + case.id, arch=case.arch, workgroup_size=(lanes, 1, 1))
    out = b.arg("out", T.GLOBAL)
    lane = b.thread_id(0)
    b.store(b.offset(out, b.mul(lane, 4)), b.convert(lane, T.F32))
    return b.finish()


def _copy_f16(case):
    """out[lane] = x[lane], 64 f16 values."""
    b = KernelBuilder("toy_" + case.id, arch=case.arch, workgroup_size=(64, 1, 1))
    x, out = b.arg("x", T.GLOBAL), b.arg("out", T.GLOBAL)
    at = b.mul(b.thread_id(0), 2)
    b.store(b.offset(out, at), b.load(b.offset(x, at), T.F16))
    return b.finish()


def _four_ulps_off(case):
    # A small output whose element 5 is 4 f16 ulps from what the kernel writes: a fault
    # an absolute bound of 1e-3 passes (4 ulps of 0.3 are 9.8e-4).
    x = np.linspace(0.26, 0.49, 64).astype(np.float16)
    want = x.astype(np.float64)
    want[5] = float(x[5]) + 4 * float(np.spacing(x[5]))
    out = np.full(64, np.nan, np.float16)
    return NumericCheck([x, out], (1, 1, 1), {1: Expected(want, np.abs(want), 1, "f16")}, lambda v: v.astype(np.float64))


def numeric_check(case, rng):
    if case.spec == "copy_f16":
        return _four_ulps_off(case)
    lanes, shift = case.spec
    if lanes > 1024:
        raise AssertionError("the problem of a refused case was made")
    out = np.full(lanes, np.nan, np.float32)
    want = np.arange(lanes) + shift
    return NumericCheck([out], (1, 1, 1), {0: Expected(want, np.abs(want), 1, "f32")}, lambda v: v)


FAMILY = Family(
    "toy",
    (
        Case("right_gfx942", "gfx942", (64, 0)),
        Case("refused_gfx942", "gfx942", (2048, 0)),
        Case("wrong_gfx942", "gfx942", (64, 1)),
        Case("broken_gfx942", "gfx942", (0, 0)),
        Case("four_ulps_off_gfx942", "gfx942", "copy_f16"),
    ),
    build,
    numeric_check,
)
'''


def test_a_refused_case_is_a_recorded_rejection_and_wrong_numbers_fail(tmp_path):
    (tmp_path / "toy_numeric_family.py").write_text(_TOY)
    report = tmp_path / "test.xml"  # where Bazel asks for the JUnit report
    env = dict(
        os.environ,
        ROCKE_FAMILY_MODULE="toy_numeric_family",
        PYTHONPATH=os.pathsep.join([str(tmp_path), *sys.path]),
        XML_OUTPUT_FILE=str(report),
    )
    proc = subprocess.run(
        [sys.executable, RUNNER, GATE], env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr  # some tests failed
    outcomes, properties = {}, {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = case.get("name")
        outcomes[name] = "failed" if case.find("failure") is not None or case.find("error") is not None else "passed"
        properties[name] = {p.get("name"): p.get("value") for p in case.iter("property")}
    test = "test_case_matches_numpy_or_is_refused"
    assert outcomes == {
        "test_family_has_cases": "passed",
        f"{test}[broken_gfx942]": "failed",
        f"{test}[four_ulps_off_gfx942]": "failed",
        f"{test}[refused_gfx942]": "passed",
        f"{test}[right_gfx942]": "passed",
        f"{test}[wrong_gfx942]": "failed",
    }, proc.stdout
    assert properties[f"{test}[refused_gfx942]"] == {"rejected": "reject refused_gfx942 arch=gfx942 error=ToyRefusal"}
    assert properties[f"{test}[right_gfx942]"] == {}
    # The log names the rejected case (pytest's node id, then the property).
    logged = [line for line in proc.stdout.splitlines() if ": rejected: " in line]
    assert len(logged) == 1 and logged[0].endswith(
        f"::{test}[refused_gfx942]: rejected: reject refused_gfx942 arch=gfx942 error=ToyRefusal"
    ), proc.stdout
    assert "ZeroDivisionError: a builder's bug" in proc.stdout and "wrong_gfx942: argument 0" in proc.stdout
