"""pytest_main: a pass is a pass; a skip, an xfail or an empty parameter set
fails the target; recorded properties are in the log and in Bazel's JUnit
report. Each case runs the real runner on a scratch test file."""

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pytest_main.py")


def run(tmp_path, body, **env):
    """(status, output) of the runner on `body`; `env` adds to the environment,
    from which this test's own XML_OUTPUT_FILE is taken out."""
    (tmp_path / "scratch_test.py").write_text("import pytest\n\n" + body)
    environ = {k: v for k, v in os.environ.items() if k != "XML_OUTPUT_FILE"}
    proc = subprocess.run(
        [sys.executable, RUNNER, "scratch_test.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=dict(environ, **env),
    )
    return proc.returncode, proc.stdout + proc.stderr


def test_passing_tests_pass(tmp_path):
    status, out = run(tmp_path, "def test_one():\n    assert 1 + 1 == 2\n")
    assert status == 0, out
    assert "1 passed" in out


def test_failing_test_fails(tmp_path):
    status, out = run(tmp_path, "def test_one():\n    assert 1 + 1 == 3\n")
    assert status == 1, out


SKIPS = {
    "skip_call": "def test_ok():\n    pass\n\ndef test_s():\n    pytest.skip('no gpu here')\n",
    "skip_mark": "def test_ok():\n    pass\n\n@pytest.mark.skip(reason='no gpu here')\ndef test_s():\n    pass\n",
    "skipif_mark": "def test_ok():\n    pass\n\n@pytest.mark.skipif(True, reason='no gpu here')\ndef test_s():\n    pass\n",
    "xfail_mark": "def test_ok():\n    pass\n\n@pytest.mark.xfail(reason='no gpu here')\ndef test_s():\n    assert False\n",
    "module_skip": "pytest.skip('no gpu here', allow_module_level=True)\n\ndef test_ok():\n    pass\n",
}


@pytest.mark.parametrize("kind", sorted(SKIPS))
def test_any_skip_fails_the_run_and_is_named(tmp_path, kind):
    status, out = run(tmp_path, SKIPS[kind])
    assert status != 0, out  # 1, or 5 ("no tests ran") for the skipped module
    assert "a skip is not a pass" in out
    assert "no gpu here" in out


def test_an_xfail_mark_on_a_passing_test_fails(tmp_path):
    status, out = run(tmp_path, "@pytest.mark.xfail(reason='flaky')\ndef test_s():\n    pass\n")
    assert status == 1, out
    assert "XPASS(strict)" in out


def test_empty_parameter_set_fails_at_collection(tmp_path):
    status, out = run(
        tmp_path, "@pytest.mark.parametrize('arch', [])\ndef test_each(arch):\n    pass\n\ndef test_ok():\n    pass\n"
    )
    assert status == 2, out  # pytest's "interrupted": a collection error
    assert "Empty parameter set" in out


PROPERTIES = (
    "@pytest.mark.parametrize('case', ['a', 'b'])\n"
    "def test_each(case, record_property):\n"
    "    if case == 'b':\n"
    "        record_property('rejected', 'reject b arch=gfx942 error=Toy')\n"
)


def test_recorded_properties_are_in_the_log_and_in_the_junit_report_bazel_asks_for(tmp_path):
    report = tmp_path / "out" / "test.xml"
    status, out = run(tmp_path, PROPERTIES, XML_OUTPUT_FILE=str(report))
    assert status == 0, out
    assert "\nscratch_test.py::test_each[b]: rejected: reject b arch=gfx942 error=Toy\n" in out
    assert "test_each[a]:" not in out
    cases = {
        c.get("name"): [(p.get("name"), p.get("value")) for p in c.iter("property")]
        for c in ET.parse(report).getroot().iter("testcase")
    }
    assert cases == {"test_each[a]": [], "test_each[b]": [("rejected", "reject b arch=gfx942 error=Toy")]}


def test_without_xml_output_file_no_report_is_written(tmp_path):
    status, out = run(tmp_path, PROPERTIES)
    assert status == 0, out
    assert "recorded properties" in out and not list(tmp_path.rglob("*.xml"))
