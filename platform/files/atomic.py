"""Writes that matter: whole or not at all, and errors a user can act on.

write_atomic() writes into a temporary file beside the target, fsyncs it,
gives it mode 0644 (mkstemp's 0600 would make a blessed golden or a code
object unreadable to other users), renames it over the target and fsyncs the
folder, so a crash leaves either the old file or the new one, never half of
one. Any failure removes the temporary file and raises OutputError with one
line naming the path, what went wrong and the fix.
"""

import errno
import os
import tempfile

# Temporary files start with this: a leftover of a killed process is easy to
# recognise (bless removes its own, `.bless-*`, under its lock).
TMP_PREFIX = ".rocke-tmp-"

# errno -> what to do about it.
_FIXES = {
    errno.ENOSPC: "free space on that disk or write elsewhere",
    errno.EDQUOT: "free space on that disk or write elsewhere",
    errno.EFBIG: "the file is larger than this process may write (ulimit -f); raise the limit or write elsewhere",
    errno.EROFS: "that file system is read-only; write elsewhere",
    errno.EACCES: "you may not write there; fix the folder's permissions or write elsewhere",
    errno.EPERM: "you may not write there; fix the folder's permissions or write elsewhere",
}


class OutputError(Exception):
    """An output file could not be written; the message is one line."""


def _check_target(path):
    folder = os.path.dirname(path)
    if os.path.isdir(path):
        raise OutputError(f"cannot write {path}: it is an existing folder; name a file inside it")
    if not os.path.isdir(folder):
        what = "is not a folder" if os.path.exists(folder) else "does not exist"
        raise OutputError(f"cannot write {path}: the folder {folder} {what}; create it or choose another path")


def sync_folder(folder):
    """Makes a rename or removal in `folder` durable."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path, data, mode=0o644, prefix=TMP_PREFIX):
    """Writes bytes `data` to `path` atomically (see the module docstring).
    `prefix` names the temporary file, for a tool that cleans up its own."""
    _check_target(path)
    folder = os.path.dirname(path)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=prefix)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(tmp, path)
        tmp = None
        sync_folder(folder)
    except OSError as e:
        fix = _FIXES.get(e.errno, "check the path and the disk, then try again")
        raise OutputError(f"cannot write {path}: {e.strerror or e}; {fix}") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
