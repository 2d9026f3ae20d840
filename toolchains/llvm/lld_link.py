"""lld's ELF linker in this process: lld_link.cc built as lld_link_NN.so
(//toolchains/llvm), one per LLVM whose lld links kernels (the flavor facts'
`linker`), loaded once per process.

A link in process takes about 0.5 ms; an ld.lld process 15-19 ms, 13 of them
to start. lld keeps a link's state in globals until the link ends, so one
link runs at a time in a process, and it runs single-threaded (--threads=1:
no thread pool left behind in the caller; the bytes are the same). lld says
when a link (a crash it recovered from) leaves the process unfit to link
again; from then on, and for the words of a failed link (this library keeps
none), llvm.py runs ld.lld.
"""

import ctypes
import os

from toolchains.llvm import waits
from toolchains.llvm.errors import LlvmError

_HERE = os.path.dirname(os.path.abspath(__file__))
_LOADED = {}  # version -> Linker
_LOCK = waits.Lock()  # one link at a time per process, whichever library


class Linker:
    def __init__(self, path):
        self._link = ctypes.CDLL(path).rocke_lld_link
        self._link.argtypes = (ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t, ctypes.POINTER(ctypes.c_int))
        self._link.restype = ctypes.c_int
        self.usable = True  # until lld says this process must not link again

    def link(self, args):
        """Run `ld.lld --threads=1 ARGS...` in this process. True if it linked;
        False if lld failed or may not run in this process (any more)."""
        argv = [b"ld.lld", b"--threads=1", *(os.fsencode(a) for a in args)]
        with _LOCK:
            if not self.usable:
                return False
            again = ctypes.c_int(0)
            status = self._link((ctypes.c_char_p * len(argv))(*argv), len(argv), ctypes.byref(again))
            self.usable = bool(again.value)
        return status == 0


def load(version):
    """The in-process lld of LLVM `version` (e.g. "22")."""
    linker = _LOADED.get(version)
    if linker is None:
        path = os.path.join(_HERE, f"lld_link_{version}.so")
        if not os.path.isfile(path):
            raise LlvmError(f"no in-process lld {version}: {path} is missing; it is //toolchains/llvm:lld_link_{version}.so, data of //toolchains/llvm:llvm (depend on that library, or build it)")
        linker = _LOADED[version] = Linker(path)
    return linker
