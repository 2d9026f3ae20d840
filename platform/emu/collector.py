"""Python's cyclic garbage collector paused while the emulator works.

Decoding and binding a kernel, and running it, allocate closures, tuples and
small objects by the hundred thousand; each of them counts towards the next
collection, and every collection also walks part of the objects that live
long (a gate's decoded programs, its inputs), which cost a gate a tenth of
its time. What the emulator leaves in cycles (a workgroup and its waves) is
collected after it, once the collector runs again.

    with paused():
        ...
"""

import contextlib
import gc


@contextlib.contextmanager
def paused():
    """No automatic collection inside; the collector as it was after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
