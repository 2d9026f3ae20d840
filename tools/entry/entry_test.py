"""entry: absl's app runs the tool with its parsed args and exits with its status."""

import subprocess
import sys
import textwrap

PROGRAM = textwrap.dedent('''
    """demo: says hello.

        demo --name a
        demo --name b

    (two examples)
    """
    from tools.entry import entry

    def make():
        p = entry.parser(prog="demo", description=__doc__)
        p.add_argument("--name", required=True)
        return p

    entry.main(make, lambda args: print("hello", args.name) or 3)
''')


def _run(*argv):
    return subprocess.run(
        [sys.executable, "-c", PROGRAM, *argv],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": ":".join(sys.path)},
        timeout=60,
    )


def test_runs_with_the_parsed_args_and_exits_with_the_status():
    proc = _run("--name", "x")
    assert (proc.returncode, proc.stdout) == (3, "hello x\n")


def test_help_keeps_one_example_per_line_and_offers_no_absl_logging_flags():
    proc = _run("--help")
    assert proc.returncode == 0
    assert "\n    demo --name a\n    demo --name b\n" in proc.stdout
    assert "--verbosity" not in proc.stdout and "--logtostderr" not in proc.stdout


def test_a_usage_error_exits_2_naming_the_flag():
    proc = _run()
    assert proc.returncode == 2 and "the following arguments are required: --name" in proc.stderr
