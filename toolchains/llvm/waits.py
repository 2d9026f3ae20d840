"""The locks around this process's LLVM, which count each thread's wait.

One process has its in-process LLVM (every libLLVM capi.py compiles with,
and every lld lld_link.py links with) and one LLVM 20 worker (llvm.py);
each takes one request at a time. Worker threads
that share them (`rocke build` where there are no worker processes) queue
for them, and a kernel's build time is its own work only without that
queue: the builder subtracts the wait its thread spent here (waited()) and
reports it apart (tools/cli/build_cmd.py).
"""

import threading
import time

_THREAD = threading.local()


class Lock:
    """A threading.Lock for `with` that adds the time this thread waited to
    take it to waited()."""

    def __init__(self):
        self._lock = threading.Lock()

    def __enter__(self):
        start = time.monotonic()
        self._lock.acquire()
        _THREAD.waited = waited() + time.monotonic() - start
        return self

    def __exit__(self, *_):
        self._lock.release()


# The in-process LLVM's lock, one for all its libraries: an lld library sets
# up the targets of the libLLVM it is built against during a link, which
# would race a compile in that libLLVM under a lock of its own. Nothing is
# lost: a build compiles one flavor, so its threads share one library anyway.
IN_PROCESS = Lock()


def waited():
    """Seconds (monotonic clock) this thread has waited so far for a Lock that
    another thread held."""
    return getattr(_THREAD, "waited", 0.0)
