"""The flavor facts file: its canonical form, its agreement with Starlark's
flavors.bzl, the tables built from it, and the loader's error on every kind
of malformed entry. (The measured facts themselves are asserted against the
real LLVMs by toolchains/llvm:conformance_test.)"""

import copy
import json
import os
import re

import pytest

from arch import arch, flavor_facts
from arch.json_edits import canonical, delete_at, set_at, write_edited

with open(flavor_facts.PATH) as f:
    TEXT = f.read()
RAW = json.loads(TEXT)


def test_file_is_in_canonical_form():
    assert TEXT == canonical(RAW), (
        "flavor_facts.json: rewrite it as json.dumps(data, sort_keys=True, indent=2) + newline"
    )


def test_starlark_states_the_same_flavors_and_versions():
    # toolchains/llvm/flavors.bzl (LLVM_FLAVORS) is Starlark's copy of the
    # versions, which toolchain setup checks each tool against; BUILD passes it in.
    starlark = json.loads(os.environ["ROCKE_LLVM_FLAVORS"])
    assert {f"llvm{major}": row["version"] for major, row in starlark.items()} == {
        n: f.version for n, f in flavor_facts.FLAVORS.items()
    }


def test_names_are_oldest_first_and_the_tables_read_only():
    assert flavor_facts.NAMES == tuple(sorted(flavor_facts.NAMES, key=lambda n: int(n.removeprefix("llvm"))))
    assert len(flavor_facts.NAMES) == len(RAW["flavors"]) > 0
    for table in (
        flavor_facts.FLAVORS,
        flavor_facts.GENERATIONS,
        flavor_facts.BUFFER_ACCESS,
        flavor_facts.IDS,
        flavor_facts.INTRINSICS,
    ):
        with pytest.raises(TypeError):
            table["x"] = None


def test_triple_spelling_follows_the_kind():
    by_kind = {f.triple_kind: f for f in flavor_facts.FLAVORS.values()}
    assert by_kind["amdgcn"].triple("gfx950") == "amdgcn-amd-amdhsa"
    assert by_kind["subarch"].triple("gfx950") == "amdgpu9.50-amd-amdhsa"
    assert by_kind["subarch"].triple("gfx1250") == "amdgpu12.50-amd-amdhsa"


def test_buffer_access_is_keyed_by_integer_byte_counts():
    assert sorted(flavor_facts.BUFFER_ACCESS) == sorted(int(size) for size in RAW["buffer_access"])
    assert flavor_facts.BUFFER_ACCESS[8] == flavor_facts.Access(
        RAW["buffer_access"]["8"]["type"], RAW["buffer_access"]["8"]["suffix"]
    )


def _rename(old, new):
    def edit(raw):
        raw["flavors"][new] = raw["flavors"].pop(old)

    return edit


def _rename_access(old, new):
    def edit(raw):
        raw["buffer_access"][new] = raw["buffer_access"].pop(old)

    return edit


F = ("flavors", "llvm22")
# (edit, the entry the message must name, what it must say was expected)
MALFORMED = {
    "unknown top key": (set_at(("barriers",), {}), "", "exactly the keys"),
    "missing flavor key": (delete_at((*F, "datalayout")), "flavors.llvm22", "exactly the keys"),
    "name unlike its version": (_rename("llvm22", "llvm21"), "flavors.llvm21", "the name its version spells, llvm22"),
    "bad version": (set_at((*F, "version"), "22.1"), "flavors.llvm22.version", "a version N.N.N"),
    "unknown triple kind": (set_at((*F, "triple"), "amdgpu"), "flavors.llvm22.triple", "one of ['amdgcn', 'subarch']"),
    "boolean code object version": (
        set_at((*F, "code_object_version"), True),
        "flavors.llvm22.code_object_version",
        "an integer in [400, 9999]",
    ),
    "rsrc without count type": (delete_at((*F, "rsrc", "count_type")), "flavors.llvm22.rsrc", "exactly the keys"),
    "rsrc count i16": (
        set_at((*F, "rsrc", "count_type"), "i16"),
        "flavors.llvm22.rsrc.count_type",
        "one of ['i32', 'i64']",
    ),
    "occupancy as a string": (
        set_at((*F, "reports_occupancy"), "yes"),
        "flavors.llvm22.reports_occupancy",
        "true or false",
    ),
    "unsorted cpus": (
        set_at((*F, "cpus"), ["gfx942", "gfx1100"]),
        "flavors.llvm22.cpus",
        "a non-empty sorted list without repeats",
    ),
    "no cpus": (set_at((*F, "cpus"), []), "flavors.llvm22.cpus", "a non-empty sorted list without repeats"),
    "unknown triple verdict": (
        set_at((*F, "triples", "amdgcn-amd-amdhsa"), "fine"),
        "flavors.llvm22.triples.amdgcn-amd-amdhsa",
        "one of ['ok', 'reject', 'warn']",
    ),
    "a triple one flavor lacks": (
        delete_at((*F, "triples", "amdgcn--amdhsa")),
        "flavors.llvm22.triples",
        "the triples of llvm20",
    ),
    "no flavors": (set_at(("flavors",), {}), "flavors", "a non-empty object flavor -> facts"),
    "unknown barrier": (
        set_at(("generations", "gfx12", "barrier"), "double"),
        "generations.gfx12.barrier",
        "one of ['single', 'split']",
    ),
    "flags beyond 32 bits": (
        set_at(("generations", "gfx9", "buffer_flags"), 2**32),
        "generations.gfx9.buffer_flags",
        "an integer in [0, 4294967295]",
    ),
    "access size not decimal": (_rename_access("8", "08"), "buffer_access.08", "a byte count spelled in decimal"),
    "access without suffix": (delete_at(("buffer_access", "4", "suffix")), "buffer_access.4", "exactly the keys"),
    "no intrinsics": (set_at(("intrinsics",), {}), "intrinsics", "a non-empty object key -> intrinsic"),
    "intrinsic key with a dot": (
        set_at(("intrinsics", "s.min"), {"name": "llvm.smin", "overloaded": True}),
        "intrinsics.s.min",
        "a key of lower-case letters",
    ),
    "intrinsic without its form": (
        delete_at(("intrinsics", "smin", "overloaded")),
        "intrinsics.smin",
        "exactly the keys",
    ),
    "intrinsic name not llvm.": (
        set_at(("intrinsics", "smin", "name"), "smin"),
        "intrinsics.smin.name",
        "an intrinsic name llvm.WORD.WORD...",
    ),
    "overloaded as a string": (
        set_at(("intrinsics", "smin", "overloaded"), "yes"),
        "intrinsics.smin.overloaded",
        "true or false",
    ),
    "two workitem axes": (
        set_at(("ids", "workitem"), ["llvm.amdgcn.workitem.id.x", "llvm.amdgcn.workitem.id.y"]),
        "ids.workitem",
        "a list of 3 intrinsics",
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_file_names_the_file_and_the_entry(case, tmp_path):
    edit, entry, expected = MALFORMED[case]
    path = tmp_path / "flavor_facts.json"
    write_edited(RAW, edit, path)
    with pytest.raises(flavor_facts.FlavorFactsError) as err:
        flavor_facts.load(str(path))
    message = str(err.value)
    assert message.startswith(f"{path}: {entry}" if entry else f"{path}: expected"), message
    assert f"expected {expected}" in message, message


def test_unreadable_file_is_one_clear_error(tmp_path):
    path = tmp_path / "flavor_facts.json"
    path.write_text("{")
    with pytest.raises(
        flavor_facts.FlavorFactsError, match=f"^{re.escape(str(path))}: expected a readable JSON file, got Expecting"
    ):
        flavor_facts.load(str(path))


def _without(raw, name):
    for f in raw["flavors"].values():
        f["cpus"] = [c for c in f["cpus"] if c != name]


@pytest.mark.parametrize(
    "edit, expected",
    [
        (
            lambda raw: raw["flavors"]["llvm22"]["cpus"].append("gfx9000"),
            "{facts}: flavors.llvm22.cpus: expected archs of {archs}, got 'gfx9000'; add the arch there or drop it here",
        ),
        (
            lambda raw: _without(raw, "gfx1151"),
            "{archs}: gfx1151: expected an arch some flavor compiles, got one in no flavor's cpus; list it in {facts}",
        ),
        (
            lambda raw: raw["generations"].pop("gfx11"),
            "{facts}: generations: expected exactly the generations of {archs}, ['gfx11', 'gfx12', 'gfx1250', 'gfx9'], got ['gfx12', 'gfx1250', 'gfx9']",
        ),
    ],
)
def test_arch_table_rejects_facts_that_disagree_with_it(edit, expected, tmp_path):
    raw = copy.deepcopy(RAW)
    edit(raw)
    raw["flavors"]["llvm22"]["cpus"].sort()
    path = tmp_path / "flavor_facts.json"
    path.write_text(canonical(raw))
    with pytest.raises(ValueError) as err:
        arch._load(arch.PATH, facts_path=str(path))
    assert str(err.value) == expected.format(facts=path, archs=arch.PATH)


def test_each_arch_is_known_to_exactly_the_flavors_whose_cpus_name_it():
    for name, info in arch.ARCHS.items():
        assert info.flavors == tuple(n for n in flavor_facts.NAMES if name in flavor_facts.FLAVORS[n].cpus), name
        assert info.flavors and info.min_llvm == info.flavors[0], name
