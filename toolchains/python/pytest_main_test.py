"""pytest_main: a pass is a pass; a skip, an xfail or an empty parameter set
fails the target. Each case runs the real runner on a scratch test file."""

import os
import subprocess
import sys

import pytest

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pytest_main.py")


def run(tmp_path, body):
    (tmp_path / "scratch_test.py").write_text("import pytest\n\n" + body)
    proc = subprocess.run([sys.executable, RUNNER, "scratch_test.py"], cwd=tmp_path, capture_output=True, text=True)
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
    status, out = run(tmp_path, "@pytest.mark.parametrize('arch', [])\ndef test_each(arch):\n    pass\n\ndef test_ok():\n    pass\n")
    assert status == 2, out  # pytest's "interrupted": a collection error
    assert "Empty parameter set" in out
