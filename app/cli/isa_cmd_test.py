"""`rocke isa` against cases of the registry: both output forms, the borrowed
disassembler of llvm20, and its one-line errors."""

import contextlib
import io
import json

import pytest
import rocke_families

from arch import arch, occupancy
from family.cases_json import canonical
from app.cli import rocke

# The first family with a case on every arch of library/case_archs.json (attention_fwd has none on gfx1250).
FIRST = next(m for m, f in rocke_families.FAMILIES.items() if any(c.arch == "gfx1250" for c in f.cases))
KEYS = [
    "arch",
    "case",
    "disassembler",
    "family",
    "flavor",
    "kernel",
    "lds_banks",
    "llvm",
    "main_loop",
    "resources",
    "whole_kernel",
]


def _case(arch_name):
    return next(c for c in rocke_families.FAMILIES[FIRST].cases if c.arch == arch_name)


@pytest.fixture(scope="module")
def gfx942_json():
    return _json(["isa", FIRST, "--case", _case("gfx942").id, "--json"])


def _json(argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert rocke.main(argv) == 0
    text = out.getvalue()
    assert text.endswith("\n") and text.count("\n") == 1
    value = json.loads(text)
    assert text == canonical(value) + "\n"  # one canonical object
    return value


def test_json_names_the_case_and_its_figures(gfx942_json):
    r = gfx942_json
    case = _case("gfx942")
    kernel = rocke_families.FAMILIES[FIRST].build(case)
    assert sorted(r) == KEYS
    assert (r["case"], r["arch"], r["flavor"], r["llvm"], r["kernel"]) == (
        case.id,
        "gfx942",
        "llvm23",
        "23.1.4",
        kernel.name,
    )
    assert r["disassembler"] == "/usr/lib/llvm-23/bin/llvm-objdump"
    # Waves per workgroup from the compiled figures, against the IR's own sizes.
    x, y, z = kernel.attrs["workgroup_size"]
    assert r["resources"]["workgroup_size"] == x * y * z
    assert r["resources"]["waves_per_workgroup"] == -(-x * y * z // kernel.attrs["wave_size"])
    assert r["resources"]["wave_size"] == kernel.attrs["wave_size"]
    assert (r["lds_banks"]["banks"], r["lds_banks"]["bank_bytes"]) == (32, 4)


def test_text_form_has_the_four_sections(gfx942_json, capsys):
    assert rocke.main(["isa", FIRST, "--case", _case("gfx942").id]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{gfx942_json['family']} {gfx942_json['case']}: gfx942, llvm23 (LLVM 23.1.4)")
    assert "LDS bank conflicts (model: 32 banks of 4 B;" in out
    loop = gfx942_json["main_loop"]
    if loop is None:
        assert "main loop: none" in out
    else:
        assert f"\n  {'matrix':13}  {loop['matrix']['count']}" in out  # labels padded to "global stores"
        assert f"\n  {'waits':13}  {loop['waits']['count']}, {loop['waits']['vmcnt0']} for vmcnt(0)" in out
        assert f"\n  {'figures':13}  {loop['loop_instructions']} instructions but scheduling hints, " in out
    whole = gfx942_json["whole_kernel"]
    assert "\nwhole kernel (every instruction once: each path of a branch, a loop's body once)\n" in out
    assert f"\n  {'instructions':13}  {whole['instructions']}\n" in out
    assert f"\n  {'global stores':13}  {whole['global_stores']['count']}" in out
    header, values = out.split("\nresources\n")[1].splitlines()
    assert dict(zip(header.split(), values.split()))["vgpr"] == str(gfx942_json["resources"]["vgpr"])


def test_llvm20_is_disassembled_by_llvm22s_objdump_and_says_so():
    r = _json(["isa", FIRST, "--case", _case("gfx942").id, "--flavor", "llvm20", "--json"])
    assert (r["flavor"], r["llvm"]) == ("llvm20", "20.1.8")
    assert r["disassembler"].startswith("/usr/lib/llvm-22/bin/llvm-objdump (llvmlite has none")
    # llvmlite prints no occupancy; it is the arch table's for the figures reported.
    res = r["resources"]
    expected = occupancy.waves_per_simd(
        "gfx942", "llvm20", res["wave_size"], res["vgpr"], res["sgpr"], res["lds"], res["workgroup_size"]
    )
    assert 1 <= expected and res["occupancy"] == expected


def test_gfx950_has_64_banks():
    r = _json(["isa", FIRST, "--case", _case("gfx950").id, "--flavor", "llvm22", "--json"])
    assert r["lds_banks"]["banks"] == arch.lds_banks("gfx950").count == 64


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["isa", "no.such.family", "--case", "x"],
            "rocke isa: expected a family of the registry, got 'no.such.family'; the registry offers: ",
        ),
        (["isa", FIRST, "--case", "no_such_case"], "rocke isa: expected a case of "),
        (["isa", FIRST, "--case", "GFX1250", "--flavor", "llvm20"], "gfx1250 is not known to llvm20"),
    ],
)
def test_errors_are_one_line(argv, message, capsys):
    if "GFX1250" in argv:
        argv[argv.index("GFX1250")] = _case("gfx1250").id
    assert rocke.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err and captured.err.count("\n") == 1 and "Traceback" not in captured.err


def test_list_is_emits_list(capsys):
    assert rocke.main(["isa", FIRST, "--list"]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{c.id}  {c.arch}" for c in rocke_families.FAMILIES[FIRST].cases]


def test_a_family_is_named_by_its_module_or_its_own_name(capsys):
    name = rocke_families.FAMILIES[FIRST].name
    assert name != FIRST  # the module path and the family's name differ (conv.direct_fwd, conv_direct_fwd)
    assert rocke.main(["isa", name, "--list"]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{c.id}  {c.arch}" for c in rocke_families.FAMILIES[FIRST].cases]


def test_no_case_points_at_list(capsys):
    assert rocke.main(["isa", FIRST]) == 2
    assert (
        capsys.readouterr().err
        == f"rocke isa: expected a case of {rocke_families.FAMILIES[FIRST].name}, got None. See --list.\n"
    )


def test_an_unknown_flavor_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as err:
        rocke.main(["isa", FIRST, "--case", _case("gfx942").id, "--flavor", "llvm21"])
    assert err.value.code == 2
    assert "invalid choice: 'llvm21'" in capsys.readouterr().err
