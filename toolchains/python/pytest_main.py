"""Entry point of every py_pytest target: run pytest, exit with its status,
except that a skipped test fails the target.

`-p no:cacheprovider` keeps runs independent of each other and writes nothing
into the tree. `--import-mode=append` puts a test's own folder last on
sys.path: first, `platform/arch/arch.py` would shadow the package `arch`
and `platform/tile/copy.py` the stdlib's `copy`.

A skip (or an xfail) is not a pass: a target that logs "17 passed, 1 skipped"
has not proved what it claims. So an empty parameter set is a collection
error (`empty_parameter_set_mark=fail_at_collect`), any skipped or xfailed
test, or skipped module, turns the exit status into a failure, named with its
reason, and an xfail-marked test that passes fails (`xfail_strict`). A test that does not apply somewhere must not be collected there.

What a test records with `record_property` (the numeric gate's expected
rejections, say) is printed after the run, a line per property, so the test
log shows it; and where Bazel asks for a JUnit report (XML_OUTPUT_FILE, under
`bazel test`) pytest writes it there, properties included, and
`bazel-testlogs/.../test.xml` is pytest's.
"""

import os
import sys

import pytest

ARGS = [
    "-p",
    "no:cacheprovider",
    "--import-mode=append",
    "-o",
    "empty_parameter_set_mark=fail_at_collect",
    "-o",
    "xfail_strict=true",
    "-q",
]


class NoSkips:
    """Records every skipped or xfailed test and every skipped module."""

    def __init__(self):
        self.skipped = []

    def _record(self, report):
        if not report.skipped:
            return
        if hasattr(report, "wasxfail"):
            reason = f"xfail {report.wasxfail}".rstrip()
        elif isinstance(report.longrepr, tuple):  # (file, line, "Skipped: why")
            reason = report.longrepr[2]
        else:
            reason = str(report.longrepr)
        self.skipped.append(f"{report.nodeid or report.fspath}: {reason}")

    def pytest_runtest_logreport(self, report):
        self._record(report)

    def pytest_collectreport(self, report):
        self._record(report)


class Properties:
    """Prints every property the tests recorded (record_property), after the run."""

    def __init__(self):
        self.recorded = []

    def pytest_runtest_logreport(self, report):
        if report.when == "teardown":  # every property is recorded by then
            self.recorded += [(report.nodeid, name, value) for name, value in report.user_properties]

    def pytest_terminal_summary(self, terminalreporter):
        if self.recorded:
            terminalreporter.section("recorded properties")
            for nodeid, name, value in self.recorded:
                terminalreporter.write_line(f"{nodeid}: {name}: {value}")


def _junit():
    """The flags that write Bazel's JUnit report, where it asks for one.
    xunit1: the family that keeps record_property's properties."""
    path = os.environ.get("XML_OUTPUT_FILE")
    return [f"--junitxml={path}", "-o", "junit_family=xunit1"] if path else []


def main(argv):
    guard = NoSkips()
    status = pytest.main([*ARGS, *_junit(), *argv], plugins=[guard, Properties()])
    if guard.skipped:
        print(
            f"FAIL: {len(guard.skipped)} test(s) skipped; a skip is not a pass. Make the test "
            "apply, or do not collect it where it cannot:",
            file=sys.stderr,
        )
        for line in guard.skipped:
            print(f"  {line}", file=sys.stderr)
        return int(status) or 1
    return int(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
