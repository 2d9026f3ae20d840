"""waits.Lock: a thread's wait for a Lock another thread holds is counted in
that thread's waited(), and nowhere else; a free lock costs no wait."""

import threading
import time

from toolchains.llvm import waits

HOLD = 0.3


def _in_thread(fn):
    out = []
    thread = threading.Thread(target=lambda: out.append(fn()))
    thread.start()
    return thread, out


def test_a_thread_counts_the_time_another_held_the_lock():
    lock, taken = waits.Lock(), threading.Event()

    def holder():
        with lock:
            taken.set()
            time.sleep(HOLD)
        return waits.waited()

    def waiter():
        taken.wait()
        before = waits.waited()
        with lock:
            pass
        return waits.waited() - before

    held, held_waited = _in_thread(holder)
    queued, queued_waited = _in_thread(waiter)
    held.join()
    queued.join()
    assert held_waited[0] < 0.01  # it took the lock free
    assert HOLD * 0.9 <= queued_waited[0] < HOLD + 2.0


def test_a_free_lock_costs_no_wait():
    lock = waits.Lock()
    before = waits.waited()
    for _ in range(100):
        with lock:
            pass
    assert waits.waited() - before < 0.01
