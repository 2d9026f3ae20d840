"""write_atomic: whole files, mode 0644, one-line errors, nothing left behind."""

import os
import resource
import signal
import stat

import pytest

from files.atomic import TMP_PREFIX, OutputError, write_atomic


def test_writes_whole_file_with_mode_0644(tmp_path):
    target = tmp_path / "k.hsaco"
    write_atomic(str(target), b"\x7fELF payload")
    assert target.read_bytes() == b"\x7fELF payload"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert [n for n in os.listdir(tmp_path) if n.startswith(TMP_PREFIX)] == []


def test_replaces_an_existing_file(tmp_path):
    target = tmp_path / "g.golden"
    target.write_bytes(b"old")
    write_atomic(str(target), b"new")
    assert target.read_bytes() == b"new"


def test_missing_folder_is_one_line_and_writes_nothing(tmp_path):
    target = tmp_path / "no" / "k.ll"
    with pytest.raises(OutputError) as err:
        write_atomic(str(target), b"x")
    assert (
        str(err.value)
        == f"cannot write {target}: the folder {tmp_path / 'no'} does not exist; create it or choose another path"
    )
    assert os.listdir(tmp_path) == []


def test_existing_folder_as_target_is_refused(tmp_path):
    (tmp_path / "out").mkdir()
    with pytest.raises(OutputError, match="it is an existing folder; name a file inside it"):
        write_atomic(str(tmp_path / "out"), b"x")
    assert os.listdir(tmp_path / "out") == []


def test_parent_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(OutputError, match=r"the folder .*/f is not a folder"):
        write_atomic(str(tmp_path / "f" / "k.ll"), b"x")


def test_a_write_that_runs_out_of_room_leaves_nothing(tmp_path):
    # A real short write from the kernel: RLIMIT_FSIZE makes write() fail with
    # EFBIG, as a full disk fails with ENOSPC (this test runs as root, so a
    # read-only folder or a full disk cannot be staged without a mount).
    target = tmp_path / "big.hsaco"
    target.write_bytes(b"previous")
    old_limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, old_limit[1]))
    try:
        with pytest.raises(OutputError) as err:
            write_atomic(str(target), b"x" * 1_000_000)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old_limit)
        signal.signal(signal.SIGXFSZ, old_handler)
    assert "\n" not in str(err.value)
    assert str(err.value).startswith(f"cannot write {target}: File too large;")
    assert target.read_bytes() == b"previous"
    assert [n for n in os.listdir(tmp_path) if n.startswith(TMP_PREFIX)] == []
