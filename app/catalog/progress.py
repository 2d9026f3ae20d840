"""Progress of a long build: one line rewritten in place on a terminal, plain
lines otherwise (a log, a pipe, CI), so neither gets the other's noise."""

import time


def _clock(seconds):
    seconds = int(seconds + 0.5)
    return f"{seconds // 60}:{seconds % 60:02d}"


class Progress:
    def __init__(self, total, stream, clock=time.monotonic):
        self.total, self.stream, self.clock = total, stream, clock
        self.done = 0
        self.start = clock()
        self.tty = stream.isatty()

    def step(self, what):
        """One more item finished; `what` says which (and how it went)."""
        self.done += 1
        elapsed = self.clock() - self.start
        eta = elapsed / self.done * (self.total - self.done)
        status = f"[{self.done}/{self.total}] {_clock(elapsed)} elapsed, {_clock(eta)} left"
        if self.tty:
            end = "\n" if self.done == self.total else ""
            self.stream.write(f"\r\x1b[K{status}: {what}{end}")
        else:
            self.stream.write(f"{status}: {what}\n")
        self.stream.flush()
