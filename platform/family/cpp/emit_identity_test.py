"""rocke-emit against emit.py on the toy family (testdata/toy_family.py and
its C++ twin toy_family.cc): the same three files byte for byte on a flavor
that lowers every case and on one that rejects a case; identity_check
passes on them and fails on a perturbed byte, naming the case; bad input is
one line naming what is wrong, and writes nothing; a wrong case list, or a
bad spec in it, is refused by both readers with the same facts
(errors.check_parity), each engine in its own words.

Environment: ROCKE_TOY_EMITTER (the C++ emitter with the toy family linked),
ROCKE_READ_CASES (read_cases_tool: the C++ reader's refusal as JSON),
ROCKE_TOY_MODULE (testdata/toy_family.py).
"""

import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(os.environ["ROCKE_TOY_MODULE"])))

from errors.errors import check_parity  # noqa: E402
from family import cases_json, emit, identity_check  # noqa: E402
from family import family as families  # noqa: E402

CPP = os.path.abspath(os.environ["ROCKE_TOY_EMITTER"])
READ_CASES = os.path.abspath(os.environ["ROCKE_READ_CASES"])
FILES = ("irs", "rk", "manifest")
TARGET = "//platform/family/cpp:toy_golden_F"


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    path = tmp_path_factory.mktemp("list") / "toy.cases.json"
    assert emit.main(["--family", "toy_family", "--cases-json", str(path)]) == 0
    return path


def flags(folder, flavor, cases_path):
    argv = ["--flavor", flavor, "--cases", str(cases_path), "--bless-target", TARGET]
    for name in FILES:
        argv += [f"--{name}", str(folder / name)]
    return argv


def run_cpp(folder, flavor, cases_path, *extra, family="toy"):
    folder.mkdir(exist_ok=True)
    return subprocess.run(
        [CPP, "--family", family, *flags(folder, flavor, cases_path), *extra],
        capture_output=True,
        text=True,
        check=False,
    )


def run_python(folder, flavor, cases_path):
    folder.mkdir(exist_ok=True)
    return emit.main(["--family", "toy_family", *flags(folder, flavor, cases_path)])


def written(folder):
    return {name: (folder / name).read_bytes() for name in FILES if (folder / name).exists()}


def identity(py, cpp):
    return identity_check.main([f"--python-{n}={py / n}" for n in FILES] + [f"--cpp-{n}={cpp / n}" for n in FILES])


# r_gfx942 is refused by the family (ToyRefusal) on every flavor, q_gfx1250 by llvm20 (ArchDomainError).
@pytest.mark.parametrize(
    "flavor,rejected",
    [
        ("llvm22", ["r_gfx942 arch=gfx942 error=ToyRefusal"]),
        ("llvm20", ["q_gfx1250 arch=gfx1250 error=ArchDomainError", "r_gfx942 arch=gfx942 error=ToyRefusal"]),
    ],
)
def test_both_engines_write_the_same_bytes(tmp_path, cases, capsys, flavor, rejected):
    assert run_python(tmp_path / "py", flavor, cases) == 0
    done = run_cpp(tmp_path / "cpp", flavor, cases)
    assert done.returncode == 0, done.stderr
    py, cpp = written(tmp_path / "py"), written(tmp_path / "cpp")
    assert set(py) == set(FILES)
    assert py == cpp
    lines = py["manifest"].decode().splitlines()
    assert [line.removeprefix("reject ") for line in lines if line.startswith("reject ")] == rejected
    assert [line.split()[1] for line in lines if line.endswith(" ir=kept")] == ["p_gfx942"] + (
        ["q_gfx1250"] if flavor != "llvm20" else []
    )
    capsys.readouterr()
    assert identity(tmp_path / "py", tmp_path / "cpp") == 0
    assert capsys.readouterr().out.startswith("PASS: 3 cases byte-identical")


def test_a_perturbed_case_fails_the_gate_naming_it(tmp_path, cases, capsys):
    assert run_python(tmp_path / "py", "llvm22", cases) == 0
    done = run_cpp(tmp_path / "cpp", "llvm22", cases, "--perturb-case", "p_gfx950")
    assert done.returncode == 0, done.stderr
    capsys.readouterr()
    assert identity(tmp_path / "py", tmp_path / "cpp") == 1
    assert (
        capsys.readouterr().out.splitlines()[0]
        == "FAIL: the Python and C++ engines differ on 1 case(s): p_gfx950 (.rk text)"
    )


# (edit of the case list, the field the error names).
LIST_ERRORS = [
    (('"family":"toy"', '"family":"other"'), "case list of toy: family"),
    (('"format":1', '"format":2'), "case list of toy: format"),
    (('"id":"p_gfx950"', '"id":"p_gfx942"'), "case list of toy: cases[1].id"),
    (('"arch":"gfx942"', '"arch":7'), "case list of toy: cases[0].arch"),
    (('{"cases":[', '{"cases":[1,'), "case list of toy: cases[0]"),
    (('"format":1', '"format":1,"extra":0'), "case list of toy"),
]


@pytest.mark.parametrize("edit,field", LIST_ERRORS)
def test_a_wrong_list_is_refused_by_both_with_the_same_facts(tmp_path, cases, capsys, edit, field):
    bad = tmp_path / "bad.cases.json"
    bad.write_text(cases.read_text(encoding="utf-8").replace(*edit, 1), encoding="utf-8")
    done = run_cpp(tmp_path / "cpp", "llvm22", bad)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert written(tmp_path / "cpp") == {}
    capsys.readouterr()
    assert run_python(tmp_path / "py", "llvm22", bad) == 1
    assert capsys.readouterr().err.count("\n") == 1
    # The facts, from each engine's reader of the list (cases_json.read, rocke::family::read_cases).
    with pytest.raises(families.FamilyError) as python:
        cases_json.read(bad.read_text(encoding="utf-8"), families.load("toy_family"))
    assert python.value.field == field
    cpp = subprocess.run([READ_CASES, "toy", str(bad)], capture_output=True, text=True, check=True)
    check_parity(python.value, json.loads(cpp.stdout), field)
    for stderr, engine in ((done.stderr, "rocke-emit: error: "), (python.value.args[0], "")):
        assert stderr.startswith(engine + field), stderr


def test_one_run_for_several_flavors_writes_each_flavors_files(tmp_path, cases):
    # Each case built once and lowered for every flavor: per flavor, the files a one-flavor run writes.
    argv = [CPP, "--family", "toy", "--cases", str(cases)]
    for flavor in ("llvm22", "llvm20"):
        argv += ["--flavor", flavor, "--bless-target", TARGET]
        argv += [arg for name in FILES for arg in (f"--{name}", str(tmp_path / f"both.{flavor}.{name}"))]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    for flavor in ("llvm20", "llvm22"):
        assert run_cpp(tmp_path / flavor, flavor, cases).returncode == 0
        both = {name: (tmp_path / f"both.{flavor}.{name}").read_bytes() for name in FILES}
        assert both == written(tmp_path / flavor), flavor
    assert written(tmp_path / "llvm20")["irs"] != written(tmp_path / "llvm22")["irs"]  # so the pairing is seen


@pytest.mark.parametrize(
    "extra,family,code,message",
    [
        ([], "tyo", 1, 'family "tyo": expected one of the registered families toy; did you mean toy?'),
        (["--perturb-case", "nope"], "toy", 2, "--perturb-case nope: expected a case id of the list"),
        (
            ["--colour", "red"],
            "toy",
            2,
            "unknown flag --colour: expected --family, --flavor, --cases, --irs, --rk, --manifest, --bless-target (and the test-only --perturb-case)",
        ),
        (
            ["--rk", "x"],
            "toy",
            2,
            "expected --flavor, --irs, --rk, --manifest, --bless-target once per flavor, got 1 --flavor, 1 --irs, 2 --rk, 1 --manifest, 1 --bless-target",
        ),
        (["--cases", "x"], "toy", 2, "--cases: expected it once, got it twice"),
        (
            ["--flavor", "llvm22", "--irs", "i2", "--rk", "r2", "--manifest", "m2", "--bless-target", "//x:y"],
            "toy",
            2,
            "expected each flavor once, got llvm22 more than once",
        ),
        (
            ["--flavor", "llvm21", "--irs", "i2", "--rk", "r2", "--manifest", "m2", "--bless-target", "//x:y"],
            "toy",
            2,
            "--flavor: expected one of llvm20, llvm22, llvm23, llvm24, got llvm21",
        ),
        (["--flavor"], "toy", 2, "--flavor: expected a value after it"),
    ],
)
def test_bad_flags_are_one_line(tmp_path, cases, extra, family, code, message):
    done = run_cpp(tmp_path / "cpp", "llvm22", cases, *extra, family=family)
    assert (done.returncode, done.stderr) == (code, f"rocke-emit: error: {message}\n")
    assert written(tmp_path / "cpp") == {}


def test_a_missing_flag_is_named(tmp_path):
    done = subprocess.run([CPP, "--family", "toy", "--flavor", "llvm22"], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stderr) == (
        2,
        "rocke-emit: error: expected all of --family, --flavor, --cases, --irs, --rk, --manifest, --bless-target (missing --cases, --irs, --rk, --manifest, --bless-target)\n",
    )


def test_a_bad_spec_is_refused_by_both_with_the_same_facts(tmp_path, cases, capsys):
    # Each engine words the spec's error its own way (platform/errors); both
    # raise FamilyError on the spec's place in the list, with the spec received.
    bad = tmp_path / "bad.cases.json"
    bad.write_text(cases.read_text(encoding="utf-8").replace('"lanes":128', '"lanes":"x"'), encoding="utf-8")
    index, entry = next((i, c) for i, c in enumerate(json.loads(bad.read_text())["cases"]) if c["spec"]["lanes"] == "x")
    field = f"case list of toy: cases[{index}].spec"
    done = run_cpp(tmp_path / "cpp", "llvm22", bad)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"rocke-emit: error: {field} (case {entry['id']}): SpecError: ToySpec: expected ")
    assert written(tmp_path / "cpp") == {}
    capsys.readouterr()
    assert run_python(tmp_path / "py", "llvm22", bad) == 1
    python = capsys.readouterr().err
    assert python.startswith(f"emit: error: {field} (case {entry['id']}): SpecError: ToySpec: expected "), python
    assert python.count("\n") == 1
    with pytest.raises(families.FamilyError) as error:
        cases_json.read(bad.read_text(encoding="utf-8"), families.load("toy_family"))
    assert error.value.facts() == ["FamilyError", field, entry["spec"], None]
    cpp = subprocess.run([READ_CASES, "toy", str(bad)], capture_output=True, text=True, check=True)
    check_parity(error.value, json.loads(cpp.stdout), field)


def test_a_kernel_the_verifier_refuses_names_the_case_in_both(tmp_path, cases, capsys):
    bad = tmp_path / "bad.cases.json"
    bad.write_text(cases.read_text(encoding="utf-8").replace('"lanes":128', '"lanes":0'), encoding="utf-8")
    done = run_cpp(tmp_path / "cpp", "llvm22", bad)
    capsys.readouterr()
    assert run_python(tmp_path / "py", "llvm22", bad) == 1
    python = capsys.readouterr().err
    assert python.startswith("emit: error: family toy, case q_gfx1250: VerifyError: ") and python.count("\n") == 1
    assert (done.returncode, done.stderr) == (1, "rocke-" + python)
    assert written(tmp_path / "cpp") == {}


def test_an_unwritable_output_is_one_line(tmp_path, cases):
    done = subprocess.run(
        [CPP, "--family", "toy", *flags(tmp_path / "no" / "such", "llvm22", cases)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert (
        done.stderr.startswith(f"rocke-emit: error: cannot write {tmp_path / 'no' / 'such' / 'irs'}: ")
        and done.stderr.count("\n") == 1
    )


def test_a_missing_list_is_named_by_both(tmp_path, capsys):
    message = f"cannot read the case list {tmp_path / 'none.json'}: No such file or directory; pass the family's NAME.cases.json"
    done = run_cpp(tmp_path / "cpp", "llvm22", tmp_path / "none.json")
    assert (done.returncode, done.stderr) == (1, f"rocke-emit: error: {message}\n")
    assert run_python(tmp_path / "py", "llvm22", tmp_path / "none.json") == 1
    assert capsys.readouterr().err == f"emit: error: {message}\n"
