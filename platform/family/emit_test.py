"""The Python emitter: builds from the case list (not from the family's own
cases), writes the LLVM IR, the .rk text and the manifest as the C++
emitter writes them, records rejections, and refuses a wrong list or a mix
of modes with one line."""

import json

import pytest

from family import cases_json, emit, manifest

_TOY_MODULE = """
import dataclasses

from family.family import Case, Family
from ir import types as T
from ir.builder import KernelBuilder


@dataclasses.dataclass(frozen=True)
class Spec:
    lanes: int

    def to_json(self):
        return {"lanes": self.lanes}

    @classmethod
    def from_json(cls, obj):
        return cls(**obj)


def build(case):
    b = KernelBuilder("toy_" + case.id, arch=case.arch, workgroup_size=(case.spec.lanes, 1, 1))
    out = b.arg("out", T.GLOBAL)
    r = b.buffer_rsrc(out, 256)
    b.buffer_store(r, b.mul(b.thread_id(0), 4), b.convert(b.lane_id(), T.F32))
    return b.finish()


FAMILY = Family("toy", (Case("p_gfx942", "gfx942", Spec(64)), Case("p_gfx1250", "gfx1250", Spec(64))), build, numeric_check=None)
"""


@pytest.fixture
def toy(tmp_path, monkeypatch):
    (tmp_path / "toy_family_for_emit_build.py").write_text(_TOY_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert emit.main(["--family", "toy_family_for_emit_build", "--cases-json", str(tmp_path / "toy.cases.json")]) == 0
    return tmp_path


def run(folder, flavor="llvm20"):
    outs = {flag: folder / f"out.{flag}" for flag in ("irs", "rk", "manifest")}
    argv = [
        "--family",
        "toy_family_for_emit_build",
        "--flavor",
        flavor,
        "--cases",
        str(folder / "toy.cases.json"),
        "--bless-target",
        "//x:toy_golden_llvm20",
    ]
    for flag, path in outs.items():
        argv += [f"--{flag}", str(path)]
    return emit.main(argv), {
        flag: path.read_text(encoding="utf-8") if path.exists() else None for flag, path in outs.items()
    }


def test_every_case_is_printed_and_lowered_or_rejected(toy):
    from ir.printer import print_kernel
    from lower.llvm import lower
    import toy_family_for_emit_build as module

    code, out = run(toy)
    assert code == 0
    rk, irs = json.loads(out["rk"]), json.loads(out["irs"])
    case = module.FAMILY.cases[0]
    assert rk == {c.id: print_kernel(module.build(c)) for c in module.FAMILY.cases}
    assert irs == {case.id: lower(module.build(case), "llvm20")}  # llvm20 knows no gfx1250
    for text in (out["rk"], out["irs"]):
        assert text == cases_json.canonical(json.loads(text)) + "\n"
    assert out["manifest"].splitlines()[2:] == [
        "reject p_gfx1250 arch=gfx1250 error=ArchDomainError",
        manifest.entry_for(case.id, "gfx942", "toy_p_gfx942", irs[case.id], kept=True).line(),
    ]
    assert not list(toy.glob(".rocke-tmp-*"))


def test_the_specs_come_from_the_list(toy):
    path = toy / "toy.cases.json"
    path.write_text(path.read_text().replace('"lanes":64', '"lanes":128'))
    code, out = run(toy)
    assert code == 0
    assert all("workgroup_size = [128, 1, 1]" in text for text in json.loads(out["rk"]).values()), out["rk"]


@pytest.mark.parametrize(
    "edit,message",
    [
        (
            ('"family":"toy"', '"family":"other"'),
            "case list of toy: family: expected 'toy', got 'other'; pass the family's own NAME.cases.json",
        ),
        (
            ('"id":"p_gfx942"', '"id":"q_gfx942"'),
            "case list of toy: cases[0].id: expected a case id of the family, got 'q_gfx942'; rebuild it",
        ),
        (
            ('"id":"p_gfx1250"', '"id":"p_gfx942"'),
            "case list of toy: cases[1].id: expected unique case ids, got 'p_gfx942' again; rebuild it",
        ),
        (('"format":1', '"format":2'), "case list of toy: format: expected 1, got 2; rebuild it"),
        (('{"cases"', '{"cases'), "case list of toy: expected JSON text, got "),
    ],
)
def test_a_wrong_list_is_one_line_and_writes_nothing(toy, capsys, edit, message):
    path = toy / "toy.cases.json"
    path.write_text(path.read_text().replace(*edit))
    code, out = run(toy)
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("emit: error: " + message) and err.count("\n") == 1, err
    assert out == {"irs": None, "rk": None, "manifest": None}


def test_an_empty_list_is_refused(toy, capsys):
    (toy / "toy.cases.json").write_text('{"cases":[],"family":"toy","format":1}\n')
    assert run(toy)[0] == 1
    assert "case list of toy: cases: expected a non-empty list of cases, got []" in capsys.readouterr().err


def test_a_failing_build_names_the_case(toy, capsys):
    path = toy / "toy.cases.json"
    path.write_text(path.read_text().replace('"lanes":64', '"lanes":0', 1))
    assert run(toy)[0] == 1
    err = capsys.readouterr().err
    assert err.startswith("emit: error: family toy, case p_gfx942: VerifyError: ") and err.count("\n") == 1, err


@pytest.mark.parametrize(
    "argv,message",
    [
        (
            ["--cases-json", "x", "--flavor", "llvm22"],
            "--cases-json writes only the case list: expected none of --flavor, --cases, --irs, --rk, --manifest, --bless-target with it, got --flavor",
        ),
        (
            ["--checks", "x", "--cases-json", "y"],
            "expected one of --cases-json and --checks, got both; each writes one file, in its own run",
        ),
        (
            ["--flavor", "llvm22", "--irs", "i"],
            "expected either --cases-json or --checks, or all of --flavor, --cases, --irs, --rk, --manifest, --bless-target (missing --cases, --rk, --manifest, --bless-target)",
        ),
    ],
)
def test_emit_refuses_a_mix_of_modes(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        emit.main(["--family", "toy_family", *argv])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_a_missing_list_is_named(toy, capsys):
    (toy / "toy.cases.json").unlink()
    assert run(toy)[0] == 1
    assert (
        capsys.readouterr().err
        == f"emit: error: cannot read the case list {toy / 'toy.cases.json'}: No such file or directory; pass the family's NAME.cases.json\n"
    )


def test_a_spec_from_json_refuses_names_the_case(toy, capsys):
    path = toy / "toy.cases.json"
    path.write_text(path.read_text().replace('{"lanes":64}', '{"lanez":64}', 1))
    assert run(toy)[0] == 1
    err = capsys.readouterr().err
    assert (
        err.startswith("emit: error: case list of toy: cases[0].spec (case p_gfx942): TypeError: ")
        and "lanez" in err
        and err.count("\n") == 1
    ), err


def test_one_run_of_two_flavors_writes_what_a_run_per_flavor_writes(toy):
    single = {}
    for flavor in ("llvm20", "llvm22"):
        code, single[flavor] = run(toy, flavor)
        assert code == 0
    argv = ["--family", "toy_family_for_emit_build", "--cases", str(toy / "toy.cases.json")]
    for flavor in ("llvm22", "llvm20"):  # in another order than the single runs
        argv += ["--flavor", flavor, "--bless-target", "//x:toy_golden_llvm20"]
        for flag in ("irs", "rk", "manifest"):
            argv += [f"--{flag}", str(toy / f"both.{flavor}.{flag}")]
    assert emit.main(argv) == 0
    for flavor in ("llvm20", "llvm22"):
        both = {flag: (toy / f"both.{flavor}.{flag}").read_text(encoding="utf-8") for flag in ("irs", "rk", "manifest")}
        assert both == single[flavor], flavor
    assert single["llvm20"]["irs"] != single["llvm22"]["irs"]  # the flavors' files differ, so the pairing is seen


@pytest.mark.parametrize(
    "extra,message",
    [
        (
            ["--flavor", "llvm23"],
            "expected --flavor, --irs, --rk, --manifest, --bless-target once per flavor, got 2 --flavor, 1 --irs, 1 --rk, 1 --manifest, 1 --bless-target",
        ),
        (
            ["--flavor", "llvm22", "--irs", "i2", "--rk", "r2", "--manifest", "m2", "--bless-target", "//x:y"],
            "expected each flavor once, got llvm22 more than once",
        ),
        (
            ["--flavor", "llvm21", "--irs", "i2", "--rk", "r2", "--manifest", "m2", "--bless-target", "//x:y"],
            "--flavor: expected one of llvm20, llvm22, llvm23, llvm24, got llvm21",
        ),
    ],
)
def test_per_flavor_flags_come_in_whole_groups(extra, message, capsys):
    argv = [
        "--cases",
        "c",
        "--flavor",
        "llvm22",
        "--irs",
        "i",
        "--rk",
        "r",
        "--manifest",
        "m",
        "--bless-target",
        "//x:y",
    ]
    with pytest.raises(SystemExit) as exit_:
        emit.main(["--family", "toy_family", *argv, *extra])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
