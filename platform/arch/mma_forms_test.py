"""The matrix-core forms file: its canonical form, its facts, and the loader's
error on every kind of malformed entry."""

import copy
import json
import re

import pytest

from arch import arch, mma_forms
from arch.json_edits import canonical, delete_at, set_at, write_edited

with open(mma_forms.PATH) as f:
    TEXT = f.read()
RAW = json.loads(TEXT)
OP, GENERATION = "mma_16x16x16_f16_f32", "gfx9"


def test_file_is_in_canonical_form():
    assert TEXT == canonical(RAW), "mma_forms.json: rewrite it as json.dumps(data, sort_keys=True, indent=2) + newline"


def test_forms_are_read_only_and_complete():
    with pytest.raises(TypeError):
        mma_forms.FORMS[("x", "y")] = None
    assert len(mma_forms.FORMS) == sum(len(e["generations"]) for e in RAW.values()) > 0


def test_a_flavor_override_replaces_only_its_fields():
    llvm = mma_forms.FORMS[("mma_16x16x32_f16_f32", "gfx1250")].llvm
    assert llvm.form == "wmma6" and llvm.for_flavor("llvm22").form == "wmma8"
    assert llvm.for_flavor("llvm22").intrinsic == llvm.intrinsic
    assert llvm.for_flavor("llvm23") == llvm.for_flavor("llvm24") == llvm.for_flavor("llvm23").for_flavor("llvm22")


def test_each_arch_has_exactly_the_ops_the_forms_list_for_it():
    for name, info in arch.ARCHS.items():
        want = sorted(op for (op, generation), f in mma_forms.FORMS.items() if name in f.archs)
        assert [m.op for m in info.matrix] == want, name
        for m in info.matrix:
            form = mma_forms.FORMS[(m.op, info.generation)]
            assert (m.m, m.n, m.k, m.a, m.c, m.wave) == (
                form.shape.m,
                form.shape.n,
                form.shape.k,
                form.shape.a,
                form.shape.c,
                form.wave,
            )


def _rename(old, new):
    def edit(raw):
        raw[new] = raw.pop(old)

    return edit


F = (OP, "generations", GENERATION)
# (edit, the entry the message must name, what it must say was expected)
MALFORMED = {
    "unknown key": (set_at((*F, "lanes"), 64), f"{OP}.generations.{GENERATION}", "exactly the keys"),
    "missing key": (delete_at((*F, "layout")), f"{OP}.generations.{GENERATION}", "exactly the keys"),
    "op id unlike its shape": (
        _rename(OP, "mma_16x16x8_f16_f32"),
        "mma_16x16x8_f16_f32",
        "the op id its shape spells, mma_16x16x16_f16_f32",
    ),
    "unknown A type": (set_at((OP, "shape", "a"), "f8"), f"{OP}.shape.a", "one of ['bf16', 'f16', 'fp8']"),
    "zero k": (set_at((OP, "shape", "k"), 0), f"{OP}.shape.k", "a positive integer"),
    "boolean m": (set_at((OP, "shape", "m"), True), f"{OP}.shape.m", "a positive integer"),
    "no generations": (set_at((OP, "generations"), {}), f"{OP}.generations", "a non-empty object"),
    "unsorted archs": (
        set_at((*F, "archs"), ["gfx942", "gfx90a"]),
        f"{OP}.generations.{GENERATION}.archs",
        "a non-empty sorted list without repeats",
    ),
    "no archs": (
        set_at((*F, "archs"), []),
        f"{OP}.generations.{GENERATION}.archs",
        "a non-empty sorted list without repeats",
    ),
    "wave 16": (set_at((*F, "wave"), 16), f"{OP}.generations.{GENERATION}.wave", "one of [32, 64]"),
    "fragment short of the matrix": (
        set_at((*F, "fragment", "c"), 3),
        f"{OP}.generations.{GENERATION}.fragment.c",
        "a count whose 64 lanes hold the 256 elements a whole number of times",
    ),
    "empty layout": (set_at((*F, "layout"), ""), f"{OP}.generations.{GENERATION}.layout", "a non-empty string"),
    "unknown operand form": (
        set_at((*F, "llvm", "form"), "wmma_mods"),
        f"{OP}.generations.{GENERATION}.llvm.form",
        "one of ['mfma', 'wmma', 'wmma6', 'wmma8']",
    ),
    "unknown cast": (
        set_at((*F, "llvm", "cast"), "zext"),
        f"{OP}.generations.{GENERATION}.llvm.cast",
        "one of ['', 'bitcast']",
    ),
    "unknown flavor": (
        set_at((*F, "llvm", "flavors"), {"llvm21": {"form": "wmma"}}),
        f"{OP}.generations.{GENERATION}.llvm.flavors.llvm21",
        "one of ['llvm20'",
    ),
    "override of an unknown field": (
        set_at((*F, "llvm", "flavors"), {"llvm22": {"flavors": {}}}),
        f"{OP}.generations.{GENERATION}.llvm.flavors.llvm22",
        "a non-empty object with keys among",
    ),
    "override that changes nothing": (
        set_at((*F, "llvm", "flavors"), {"llvm22": {"form": "mfma"}}),
        f"{OP}.generations.{GENERATION}.llvm.flavors.llvm22",
        "only values that differ",
    ),
    "override to a bad form": (
        set_at((*F, "llvm", "flavors"), {"llvm22": {"form": "wmma7"}}),
        f"{OP}.generations.{GENERATION}.llvm.flavors.llvm22.form",
        "one of ['mfma'",
    ),
    "not an object": (lambda raw: raw.clear(), "", "a non-empty object op id -> entry"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_file_names_the_file_and_the_entry(case, tmp_path):
    edit, entry, expected = MALFORMED[case]
    path = tmp_path / "mma_forms.json"
    write_edited(RAW, edit, path)
    with pytest.raises(mma_forms.MmaFormsError) as err:
        mma_forms.load(str(path))
    message = str(err.value)
    assert message.startswith(f"{path}: {entry}"), message
    assert f"expected {expected}" in message, message


def test_unreadable_file_is_one_clear_error(tmp_path):
    path = tmp_path / "mma_forms.json"
    path.write_text("{")
    with pytest.raises(
        mma_forms.MmaFormsError, match=f"^{re.escape(str(path))}: expected a readable JSON file, got Expecting"
    ):
        mma_forms.load(str(path))


@pytest.mark.parametrize(
    "archs, expected",
    [
        (
            ["gfx1100"],
            "expected archs of generation gfx9 with wave64, got gfx1100 (generation gfx11, wave sizes [32, 64]); list it under its own generation",
        ),
        (["gfx9000"], f"expected archs of {arch.PATH}, got 'gfx9000'; add the arch there or drop it here"),
    ],
)
def test_arch_table_rejects_a_form_naming_an_arch_it_cannot_have(archs, expected, tmp_path):
    raw = copy.deepcopy(RAW)
    raw[OP]["generations"][GENERATION]["archs"] = archs
    path = tmp_path / "mma_forms.json"
    path.write_text(canonical(raw))
    with pytest.raises(ValueError) as err:
        arch._load(arch.PATH, str(path))
    assert str(err.value) == f"{path}: {OP}.generations.{GENERATION}.archs: {expected}"
