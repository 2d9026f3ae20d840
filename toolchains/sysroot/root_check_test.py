"""root.sh trusts a root only when it is whole: its marker names the current key
with the vital files' sizes, and every file under its system folders still has
the type, size, modification time, link target (every call) and sha256
(`check --full`, `verify`) recorded when it was built.

Each test runs the real root.sh over a tiny root-shaped folder in a scratch
ROCKE_ROOTS: a few files where a root has them, with the marker build_root.sh
would write (root.sh's own marker_of)."""

import os
import shutil
import subprocess

import pytest

ROOT_SH = os.path.abspath("toolchains/sysroot/root.sh")
PACKAGE = "opt/rocke/venv/lib/python3.14/site-packages/hypothesis"
LLC = "usr/lib/llvm-22/bin/llc"


def run(args, roots, **kwargs):
    env = dict(os.environ, ROCKE_ROOTS=str(roots))
    return subprocess.run(args, capture_output=True, text=True, env=env, **kwargs)


def root_sh(roots, *args):
    return run(["bash", ROOT_SH, *args], roots)


def sourced(roots, script, *args):
    """Runs SCRIPT with root.sh's functions and settings loaded."""
    return run(["bash", "-c", f'source "{ROOT_SH}"; {script}', "_", *args], roots)


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@pytest.fixture
def roots(tmp_path):
    return tmp_path / "roots"


@pytest.fixture
def root(roots):
    """A root-shaped folder named by the current key, with no file manifest yet."""
    key = root_sh(roots, "key").stdout.strip()
    folder = roots / key
    for rel in sourced(roots, 'printf "%s\\n" "${vital[@]}"').stdout.split():
        write(folder / rel, f"{rel}\n".encode() * 3)
    write(folder / LLC, b"\x7fELF" + bytes(range(256)) * 8)
    write(folder / PACKAGE / "__init__.py", b"from hypothesis.core import given\n")
    write(folder / PACKAGE / "core.py", b"def given(*a):\n    pass\n")
    (folder / "usr/bin/python3").symlink_to("python3.14")
    marker = sourced(roots, 'key=$(root_key); marker_of "$1"', folder)
    assert marker.returncode == 0, marker.stderr
    (folder / ".rocke-root").write_text(marker.stdout)
    return folder


@pytest.fixture
def trusted(root, roots):
    """The root once root.sh has seen it: trusted, with its manifests written."""
    first = root_sh(roots, "path")
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == str(root)
    assert "predates file manifests" in first.stderr
    return root


def check(root, *flags):
    result = root_sh(root.parent, "check", *flags, str(root))
    return result.returncode, result.stderr


def test_a_root_without_manifests_is_trusted_once(trusted, roots):
    assert (trusted / ".rocke-files").is_file() and (trusted / ".rocke-sha256").is_file()
    again = root_sh(roots, "path")
    assert (again.returncode, again.stdout.strip(), again.stderr) == (0, str(trusted), "")
    assert check(trusted) == (0, "")
    assert check(trusted, "--full") == (0, "")


def test_verify_reports_a_whole_root(trusted, roots):
    result = root_sh(roots, "verify")
    assert result.returncode == 0, result.stderr
    files = len((trusted / ".rocke-sha256").read_text().splitlines())
    assert f"is whole: all {files} files match their sha256" in result.stderr


def test_a_deleted_python_package_is_caught(trusted):
    shutil.rmtree(trusted / PACKAGE)
    status, err = check(trusted)
    assert status == 1
    assert "missing or changed (size, time or link): 2 files, e.g." in err and f"{PACKAGE}/__init__.py" in err
    assert check(trusted, "--full")[0] == 1


def corrupt_header(path):
    """Zeroes the first 4 bytes in place: same size, different content."""
    with open(path, "r+b") as f:
        f.write(b"\0\0\0\0")


def test_a_same_size_corrupted_binary_is_caught(trusted):
    corrupt_header(trusted / LLC)
    status, err = check(trusted)
    assert status == 1 and LLC in err


def test_a_corruption_that_keeps_the_time_is_caught_by_the_full_check(trusted):
    times = os.stat(trusted / LLC)
    corrupt_header(trusted / LLC)
    os.utime(trusted / LLC, ns=(times.st_atime_ns, times.st_mtime_ns))
    status, err = check(trusted, "--full")
    assert status == 1
    assert f"missing or changed content (sha256): 1 file, e.g. {LLC}" in err


def test_a_retargeted_symlink_is_caught(trusted):
    link = trusted / "usr/bin/python3"
    link.unlink()
    link.symlink_to("python3.99")
    assert check(trusted)[0] == 1


def test_changed_times_alone_are_recorded_not_rebuilt(trusted, roots):
    os.utime(trusted / PACKAGE / "core.py", (1, 1))
    assert check(trusted)[0] == 1
    kept = root_sh(roots, "path")
    assert kept.returncode == 0, kept.stderr
    assert "every sha256 still matches; recording the new times" in kept.stderr
    assert check(trusted) == (0, "")


def test_python_caches_and_new_files_are_not_damage(trusted):
    write(trusted / PACKAGE / "__pycache__/core.cpython-314.pyc", b"cache")
    write(trusted / "usr/share/doc/new.txt", b"new")
    assert check(trusted, "--full") == (0, "")


def test_missing_marker_means_half_built(trusted):
    (trusted / ".rocke-root").unlink()
    status, err = check(trusted)
    assert status == 1 and "its build never finished" in err


def test_truncated_vital_file_means_corrupted(trusted):
    with open(trusted / "usr/bin/bazel", "r+b") as f:
        f.truncate(10)
    assert check(trusted)[0] == 1


def test_missing_vital_file_means_corrupted(trusted):
    (trusted / "etc/bazel.bazelrc").unlink()
    assert check(trusted)[0] == 1


def test_marker_of_another_key_is_not_trusted(trusted):
    marker = trusted / ".rocke-root"
    lines = marker.read_text().splitlines()
    marker.write_text("\n".join(["key 0000000000000000"] + lines[1:]) + "\n")
    status, err = check(trusted)
    assert status == 1 and "another key" in err


def test_check_names_its_usage():
    result = subprocess.run(["bash", ROOT_SH, "check"], capture_output=True, text=True)
    assert result.returncode == 1
    assert "root.sh check [--full] DIR" in result.stderr
