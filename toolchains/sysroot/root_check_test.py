"""root.sh trusts a root only when it is whole: the marker names the current
key and every vital file has the size recorded when the build finished.

Runs inside the pinned root itself, which is the one whole root at hand."""

import os
import shutil
import subprocess

import pytest

ROOT_SH = os.path.abspath("toolchains/sysroot/root.sh")


def check(folder):
    return subprocess.run(["bash", ROOT_SH, "check", str(folder)], capture_output=True).returncode


def vital_files():
    """(path, size) of each vital file, as the running root's marker records them."""
    with open("/.rocke-root") as f:
        return [(line.split()[0], int(line.split()[1])) for line in f.read().splitlines()[1:]]


@pytest.fixture
def copy_of_root(tmp_path):
    """A stand-in root: the real marker, and sparse files of the recorded sizes."""
    shutil.copy("/.rocke-root", tmp_path / ".rocke-root")
    for rel, size in vital_files():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        with open(tmp_path / rel, "wb") as f:
            f.truncate(size)
    return tmp_path


def test_the_running_root_is_whole():
    assert check("/") == 0


def test_the_copy_is_whole(copy_of_root):
    assert check(copy_of_root) == 0


def test_missing_marker_means_half_built(copy_of_root):
    (copy_of_root / ".rocke-root").unlink()
    assert check(copy_of_root) == 1


def test_truncated_vital_file_means_corrupted(copy_of_root):
    with open(copy_of_root / vital_files()[0][0], "r+b") as f:
        f.truncate(100)
    assert check(copy_of_root) == 1


def test_missing_vital_file_means_corrupted(copy_of_root):
    (copy_of_root / vital_files()[-1][0]).unlink()
    assert check(copy_of_root) == 1


def test_marker_of_another_key_is_not_trusted(copy_of_root):
    marker = copy_of_root / ".rocke-root"
    lines = marker.read_text().splitlines()
    marker.write_text("\n".join(["key 0000000000000000"] + lines[1:]) + "\n")
    assert check(copy_of_root) == 1
