"""The byte-identity gate on scratch files: equal outputs pass; a differing
.rk text, LLVM IR or manifest, zero cases, or differing case ids fail with a
message naming what differs."""

import json

import pytest

from family import identity_check, manifest

RK = {"p_gfx942": "kernel @p {\n  %0 = const 1\n}\n", "q_gfx950": "kernel @q {\n}\n"}
LL = {"p_gfx942": "; p\ndefine void @p() {\n  ret void\n}\n", "q_gfx950": "; q\n"}
MANIFEST = manifest.render(
    [manifest.entry_for(i, i.split("_")[1], i[0], LL[i]) for i in LL],
    manifest.header("fam", "llvm22", "//library/conv:fam_golden_llvm22"),
)


def run(tmp_path, capsys, rk=RK, ll=LL, cpp_manifest=MANIFEST, python_rk=RK, python_ll=LL):
    files = {
        "python-rk": json.dumps(python_rk),
        "cpp-rk": json.dumps(rk),
        "python-irs": json.dumps(python_ll),
        "cpp-irs": json.dumps(ll),
        "python-manifest": MANIFEST,
        "cpp-manifest": cpp_manifest,
    }
    argv = []
    for flag, text in files.items():
        (tmp_path / flag).write_text(text, encoding="utf-8")
        argv.append(f"--{flag}={tmp_path / flag}")
    code = identity_check.main(argv)
    return code, capsys.readouterr().out


def test_identical_outputs_pass(tmp_path, capsys):
    code, out = run(tmp_path, capsys)
    assert (code, out) == (0, "PASS: 2 cases byte-identical (.rk text of 2, LLVM IR of 2 lowered; manifests equal)\n")


def test_a_differing_rk_text_names_the_case_and_the_builder(tmp_path, capsys):
    code, out = run(tmp_path, capsys, rk={**RK, "p_gfx942": RK["p_gfx942"].replace("const 1", "const 2")})
    assert code == 1
    assert out.splitlines() == [
        "FAIL: the Python and C++ engines differ on 1 case(s): p_gfx942 (.rk text)",
        "case p_gfx942:",
        "  .rk text differs (look at the builder or the printer), first differing line 2:",
        "    python: '  %0 = const 1'",
        "    c++:    '  %0 = const 2'",
    ]


def test_a_differing_llvm_ir_names_the_case_and_the_lowering(tmp_path, capsys):
    code, out = run(tmp_path, capsys, ll={**LL, "q_gfx950": "; q\nextra\n"})
    assert code == 1
    assert out.splitlines()[:5] == [
        "FAIL: the Python and C++ engines differ on 1 case(s): q_gfx950 (LLVM IR)",
        "case q_gfx950:",
        "  LLVM IR differs (look at the lowering), first differing line 2:",
        "    python: '<end of text>'",  # Python's IR has ended
        "    c++:    'extra'",
    ]


def test_a_differing_rk_text_and_ir_blame_the_rk_text_first(tmp_path, capsys):
    code, out = run(tmp_path, capsys, rk={**RK, "q_gfx950": "kernel @Q {\n}\n"}, ll={**LL, "q_gfx950": "; Q\n"})
    assert code == 1
    assert out.splitlines() == [
        "FAIL: the Python and C++ engines differ on 1 case(s): q_gfx950 (.rk text and LLVM IR)",
        "case q_gfx950:",
        "  .rk text differs (look at the builder or the printer), first differing line 1:",
        "    python: 'kernel @q {'",
        "    c++:    'kernel @Q {'",
        "  LLVM IR differs (look at the .rk text first: the IR differs before it is lowered), first differing line 1:",
        "    python: '; q'",
        "    c++:    '; Q'",
    ]


def test_a_differing_manifest_alone_fails(tmp_path, capsys):
    code, out = run(tmp_path, capsys, cpp_manifest=MANIFEST.replace("kernel=p", "kernel=P"))
    assert code == 1
    assert out.splitlines() == [
        "FAIL: the manifests differ",
        "  manifest, first differing line 3:",
        f"    python: {MANIFEST.splitlines()[2]!r}",
        f"    c++:    {MANIFEST.splitlines()[2].replace('kernel=p', 'kernel=P')!r}",
    ]


def test_zero_cases_fail_as_nothing_compared(tmp_path, capsys):
    code, out = run(tmp_path, capsys, rk={}, ll={}, python_rk={}, python_ll={})
    assert (code, out) == (
        1,
        "FAIL: compared nothing: zero cases were emitted; a family needs cases (see its NAME_cases list)\n",
    )


def test_differing_case_ids_are_named_by_side(tmp_path, capsys):
    code, out = run(tmp_path, capsys, rk={"p_gfx942": RK["p_gfx942"], "r_gfx1201": "kernel @r {\n}\n"})
    assert code == 1
    assert out.splitlines() == [
        "FAIL: the case ids differ: .rk text of 1 case(s) only Python emitted: q_gfx950",
        "FAIL: the case ids differ: .rk text of 1 case(s) only C++ emitted: r_gfx1201",
    ]


def test_more_than_twenty_differing_cases_are_counted(tmp_path, capsys):
    many = {f"c{i:02d}_gfx942": "x\n" for i in range(25)}
    code, out = run(tmp_path, capsys, rk={k: "y\n" for k in many}, python_rk=many, ll={}, python_ll={})
    first = out.splitlines()[0]
    assert code == 1
    assert first.startswith("FAIL: the Python and C++ engines differ on 25 case(s): c00_gfx942 (.rk text), ")
    assert first.endswith("c19_gfx942 (.rk text) and 5 more")


@pytest.mark.parametrize(
    "text,message", [("{", "cannot read"), ('["x"]', "expected a JSON object id -> text, got list")]
)
def test_an_unreadable_map_fails_with_one_line(tmp_path, capsys, text, message):
    (tmp_path / "bad").write_text(text)
    argv = [
        f"--{f}={tmp_path / 'bad'}"
        for f in ("python-rk", "cpp-rk", "python-irs", "cpp-irs", "python-manifest", "cpp-manifest")
    ]
    assert identity_check.main(argv) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAIL: ") and message in out and out.count("\n") == 1
