"""`rocke isa --run`: every gemm case on an emulated arch runs in the emulator,
computes numpy's numbers, and its static LDS bank model agrees with the bank
cycles of its real accesses, or the report names the reason they differ; the
text form shows the run; a case on an arch the emulator does not run is one
line and exit status 2."""

import contextlib
import io

import pytest

from app.cli import command_line, isa_cmd
from app.cli.inputs import default_flavor
from emu import emu
from gemm import gemm

FLAVOR = default_flavor()
GEMM = gemm.FAMILY
RUN = [c.id for c in GEMM.cases if c.arch in emu.EMULATED]


def main(argv):
    """The command line with `rocke isa` and the gemm family: an edit to another family does not re-run this test."""
    return command_line.main(argv, {"isa": isa_cmd}, command_line.registry(gemm))


def test_gemm_has_cases_on_every_emulated_arch():
    assert {GEMM.cases[[c.id for c in GEMM.cases].index(i)].arch for i in RUN} == set(emu.EMULATED), RUN


@pytest.mark.parametrize("case_id", RUN)
def test_gemm_case_runs_right_and_its_bank_models_agree(case_id, record_property):
    run = isa_cmd.report(GEMM, case_id, FLAVOR, run=True)["run"]
    assert run["numbers"] == "match numpy", run["numbers"]
    banks = run["banks"]
    assert run["figures"]["lds_executions"] > 0, run
    assert banks["agree"] or banks["why"], f"{case_id}: static and dynamic bank figures differ, unexplained: {banks}"
    record_property("banks", f"{case_id}: {banks}")


def test_text_shows_the_run():
    case_id = next(i for i in RUN if i.endswith("_gfx942"))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(["isa", "gemm.gemm", "--case", case_id, "--flavor", FLAVOR, "--run"]) == 0, err.getvalue()
    text = out.getvalue()
    assert "\nrun in the emulator: " in text, text
    assert "  numbers" in text and "match numpy" in text, text
    assert "static model worst" in text, text


def test_an_arch_the_emulator_does_not_run_is_one_line():
    case_id = next(c.id for c in GEMM.cases if c.arch not in emu.EMULATED)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(["isa", "gemm.gemm", "--case", case_id, "--flavor", FLAVOR, "--run"]) == 2
    assert err.getvalue().count("\n") == 1 and "--run:" in err.getvalue(), err.getvalue()
    assert out.getvalue() == ""
