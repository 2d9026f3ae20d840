"""The Family interface: unique ids, loading a module's FAMILY, the representative rule, numeric seeds."""

import pytest

from family import family
from family.family import Case, Family, FamilyError

SPEC_A, SPEC_B = ("a", 1), ("b", 2)


def cases(problems, archs):
    return [Case(f"{name}_{arch}", arch, spec) for name, spec in problems for arch in archs]


def test_duplicate_case_ids_are_a_family_error_with_its_facts():
    with pytest.raises(FamilyError) as e:
        Family("f", (Case("x", "gfx942", None), Case("x", "gfx950", None), Case("y", "gfx942", None)), None, None)
    assert e.value.facts() == ["FamilyError", "family f: cases", ["x"], None]
    assert str(e.value).startswith("family f: cases: expected unique case ids, got duplicates ['x']; give each case")


def test_a_module_without_a_family_is_a_family_error_naming_it():
    with pytest.raises(FamilyError) as e:
        family.load("family.bound")  # a module of this package that defines no FAMILY
    assert e.value.facts() == ["FamilyError", "family.bound.FAMILY", "NoneType", ["Family"]]
    assert str(e.value).startswith("family.bound.FAMILY: expected a module-level FAMILY = Family(...), got NoneType;")


def test_one_representative_per_arch_family_for_a_problem_on_every_arch():
    # Today's conv families: every problem on every arch. gfx950 repeats
    # gfx942 (both gfx9); gfx12 and gfx1250 lower it their own way.
    all_cases = cases([("p", SPEC_A), ("q", SPEC_B)], ["gfx942", "gfx950", "gfx1201", "gfx1250"])
    assert family.representatives(all_cases) == ["p_gfx942", "p_gfx1201", "p_gfx1250"]


def test_the_same_problem_on_two_archs_of_one_family_is_kept_once():
    assert family.representatives(cases([("p", SPEC_A)], ["gfx950", "gfx942", "gfx90a"])) == ["p_gfx950"]


def test_an_arch_with_problems_of_its_own_keeps_them():
    mfma = cases([("m", SPEC_A)], ["gfx942", "gfx950"])
    wmma = cases([("w", SPEC_B)], ["gfx1201"])
    assert family.representatives(mfma + wmma) == ["m_gfx942", "w_gfx1201"]


def test_representatives_follow_the_family_order_not_the_id_order():
    # llvm20 rejects gfx1250, so its emitted cases start with gfx942; the
    # chosen arch is the first one emitted in the family's order.
    emitted = cases([("p", SPEC_A)], ["gfx950", "gfx942"])
    assert family.representatives(emitted) == ["p_gfx950"]
    assert family.representatives(list(reversed(emitted))) == ["p_gfx942"]


def test_seed_uses_the_whole_case_id():
    # These share their first 8 bytes ("2d_nhwc_"); each must still get its own inputs.
    ids = [f"2d_nhwc_f16_3x3_{arch}" for arch in ("gfx942", "gfx950", "gfx1201", "gfx1250")] + [
        "2d_nhwc_bf16_stride2_gfx942"
    ]
    assert len({family.seed(i) for i in ids}) == len(ids)


def test_seed_is_fixed():
    # sha256("x") begins 2d711642b726b044 (FIPS 180-2 digest); read little-endian.
    assert family.seed("x") == int.from_bytes(bytes.fromhex("2d711642b726b044"), "little")
