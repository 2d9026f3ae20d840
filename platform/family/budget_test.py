"""budget.overruns: spills and register counts against the arch's budget."""

from family.budget import overruns

FITS = {"vgpr": 136, "agpr": 0, "sgpr": 30, "vgpr_spill": 0, "sgpr_spill": 0}


def test_a_kernel_within_budget_has_no_overrun():
    assert overruns(FITS, "gfx942") == []
    assert overruns({**FITS, "agpr": None, "vgpr": 256}, "gfx1201") == []
    assert overruns({**FITS, "vgpr": 1024}, "gfx1250") == []


def test_spills_are_overruns():
    assert overruns({**FITS, "vgpr_spill": 3}, "gfx942") == ["vgpr_spill: expected 0 (no spills), got 3"]
    assert overruns({**FITS, "sgpr_spill": 1}, "gfx1201") == ["sgpr_spill: expected 0 (no spills), got 1"]


def test_unreported_spills_are_overruns():
    assert overruns({**FITS, "vgpr_spill": None}, "gfx950") == [
        "vgpr_spill: not reported by the code object's metadata, so no spill can be ruled out"
    ]


def test_registers_past_the_arch_budget():
    assert overruns({**FITS, "vgpr": 257}, "gfx1201") == [
        "vgpr: expected at most 256 per lane on gfx1201 (archs.json), got 257"
    ]
    assert overruns({**FITS, "vgpr": 512}, "gfx942") == []
    assert overruns({**FITS, "agpr": 300}, "gfx942") == [
        "agpr: expected at most 256 per lane on gfx942 (archs.json), got 300"
    ]
