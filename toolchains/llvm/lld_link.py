"""lld's ELF linker in this process: lld_link.cc built as lld_link_NN.so
(//toolchains/llvm), one per LLVM whose lld links kernels (the flavor facts'
`linker`), loaded once per process.

A link here costs a small part of an ld.lld process's time, most of which
goes to starting it (docs/figures/llvm-time.md has the figures).
lld keeps a link's state in globals until the link ends, so links take the
in-process LLVM's lock (waits.IN_PROCESS), and each runs single-threaded
(--threads=1: no thread pool is left behind in the caller; the bytes are
the same). When lld says a link (a fatal error or a crash it recovered
from) leaves the process unfit to link again, this Linker stops; from then
on, and for the words of any failed link (the library keeps none), llvm.py
runs ld.lld.
"""

import ctypes
import glob
import os

from toolchains.llvm import waits
from toolchains.llvm.errors import LlvmError

_HERE = os.path.dirname(os.path.abspath(__file__))
_LOADED: dict = {}  # version -> Linker


class Linker:
    def __init__(self, path):
        try:
            self._link = ctypes.CDLL(path).rocke_lld_link
        except (OSError, AttributeError) as e:
            raise LlvmError(
                f"cannot load the in-process lld {path}: {e}; it links against the root's libLLVM of its version: rebuild it (./bazel build //toolchains/llvm:all)"
            ) from None
        self._link.argtypes = (ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t, ctypes.POINTER(ctypes.c_int))
        self._link.restype = ctypes.c_int
        self.usable = True  # until lld says this process must not link again

    def link(self, args):
        """Run `ld.lld --threads=1 ARGS...` in this process. True if it linked;
        False if lld failed or may not run in this process (any more)."""
        argv = [b"ld.lld", b"--threads=1", *(os.fsencode(a) for a in args)]
        with waits.IN_PROCESS:
            if not self.usable:
                return False
            again = ctypes.c_int(0)
            status = self._link((ctypes.c_char_p * len(argv))(*argv), len(argv), ctypes.byref(again))
            self.usable = bool(again.value)
        return status == 0


def load(version):
    """The in-process lld of LLVM `version` (e.g. "22"), loaded once per process."""
    with waits.IN_PROCESS:  # its static initialisers register with its libLLVM
        if version not in _LOADED:
            path = os.path.join(_HERE, f"lld_link_{version}.so")
            if not os.path.isfile(path):
                present = sorted(os.path.basename(p) for p in glob.glob(os.path.join(_HERE, "lld_link_*.so")))
                raise LlvmError(
                    f"no in-process lld for LLVM {version!r} beside {__file__}: found {', '.join(present) or 'none'}; each is built by //toolchains/llvm:lld_link_NN.so for the linkers flavors.bzl names, and reaches a program as data of //toolchains/llvm:llvm"
                )
            _LOADED[version] = Linker(path)
        return _LOADED[version]
