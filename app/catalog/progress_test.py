"""Progress: a line rewritten in place on a terminal, plain lines otherwise."""

import io

from catalog.progress import Progress


class Terminal(io.StringIO):
    def isatty(self):
        return True


def _clock(times):
    it = iter(times)
    return lambda: next(it)


def test_plain_lines_when_not_a_terminal_with_done_total_elapsed_and_eta():
    out = io.StringIO()
    p = Progress(4, out, clock=_clock([100.0, 102.0, 104.0]))
    p.step("a")
    p.step("b")
    # 2 s per item: after 1 of 4, 6 s left; after 2, 4 s.
    assert out.getvalue() == "[1/4] 0:02 elapsed, 0:06 left: a\n[2/4] 0:04 elapsed, 0:04 left: b\n"


def test_one_line_rewritten_in_place_on_a_terminal_ending_with_a_newline():
    out = Terminal()
    p = Progress(2, out, clock=_clock([0.0, 61.0, 130.0]))
    p.step("a")
    assert out.getvalue() == "\r\x1b[K[1/2] 1:01 elapsed, 1:01 left: a" and "\n" not in out.getvalue()
    p.step("b")
    assert out.getvalue().endswith("\r\x1b[K[2/2] 2:10 elapsed, 0:00 left: b\n")
