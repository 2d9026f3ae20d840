"""The Python toolchain: the venv interpreter, its locked packages, pybind11."""

import importlib
import os
import platform
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def test_interpreter_is_the_root_venv():
    assert sys.prefix == "/opt/rocke/venv"
    assert sys.version_info[:2] == (3, 14)


@pytest.mark.parametrize("module", ["numpy", "pytest", "absl", "pybind11", "hypothesis"])
def test_locked_packages_import(module):
    assert importlib.import_module(module).__name__ == module


def test_pybind_extension_imports_and_calls():
    sys.path.insert(0, HERE)
    import pybind_probe

    assert pybind_probe.add(40, 2) == 42
    assert pybind_probe.python_version() == platform.python_version()


def test_extension_exports_only_its_init_function():
    # Hidden visibility: of the functions the module defines, only PyInit_ is
    # in the dynamic symbol table.
    out = subprocess.run(
        ["nm", "-D", "--defined-only", os.path.join(HERE, "pybind_probe.so")],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    functions = [line.split()[2] for line in out.splitlines() if line.split()[1] == "T"]
    assert functions == ["PyInit_pybind_probe"]
