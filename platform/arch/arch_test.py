"""The architecture table: facts that must hold, and its error messages."""

import json
import re

import pytest

from arch import arch, flavor_facts


def test_required_archs_are_present():
    assert {"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1151", "gfx1201", "gfx1250"} <= set(arch.ARCHS)


def test_gfx1250_is_wave32_only_and_unknown_to_llvm20():
    info = arch.get("gfx1250")
    assert info.wave_sizes == (32,)
    assert info.flavors == ("llvm22", "llvm23", "llvm24") and info.min_llvm == "llvm22"
    assert not arch.knows("llvm20", "gfx1250")


def test_gfx9_is_wave64_with_agprs():
    for name in ("gfx90a", "gfx942", "gfx950"):
        info = arch.get(name)
        assert info.wave_sizes == (64,) and info.agprs == 256 and info.generation == "gfx9"


def test_lds_sizes():
    assert arch.get("gfx950").lds_bytes == 160 * 1024
    assert arch.get("gfx1250").lds_bytes == 320 * 1024
    assert arch.get("gfx942").lds_bytes == 64 * 1024


def test_lds_banks():
    # 64 banks where LDS grew (gfx950, gfx1250), 32 elsewhere; dword-wide everywhere (SOURCES.md).
    wide = {"gfx950", "gfx1250"}
    for name in arch.ARCHS:
        assert arch.lds_banks(name) == arch.LdsBanks(64 if name in wide else 32, 4), name
    with pytest.raises(arch.UnknownArchError, match="Did you mean gfx942"):
        arch.lds_banks("gfx9422")


def test_a_bad_bank_count_is_refused(tmp_path):
    raw = json.loads(open(arch.PATH).read())
    raw["gfx942"]["lds_banks"] = 0
    path = tmp_path / "archs.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(ValueError) as err:
        arch._load(str(path))
    assert str(err.value) == f"{path}: gfx942.lds_banks: expected a positive integer, got 0"


def test_workgroup_and_occupancy_limits():
    for name, info in arch.ARCHS.items():
        assert info.max_workgroup_size == 1024, name
        assert info.waves_per_eu == ((1, 8) if info.generation == "gfx9" else (1, 16)), name


@pytest.mark.parametrize("name", sorted(arch.ARCHS))
def test_flavors_are_a_suffix_of_the_flavor_list(name):
    info = arch.get(name)
    assert info.flavors == flavor_facts.NAMES[flavor_facts.NAMES.index(info.min_llvm) :]


@pytest.mark.parametrize("name", sorted(arch.ARCHS))
def test_matrix_op_ids_match_their_shapes(name):
    info = arch.get(name)
    assert info.matrix, name
    for m in info.matrix:
        assert m.op == f"mma_{m.m}x{m.n}x{m.k}_{m.a}_{m.c}"
        assert m.wave in info.wave_sizes
        assert re.fullmatch(r"mma_\d+x\d+x\d+_(f16|bf16|fp8)_f32", m.op)


def test_unknown_arch_names_known_ones_and_suggests():
    with pytest.raises(arch.UnknownArchError) as err:
        arch.get("gfx943")
    message = str(err.value)
    assert "got 'gfx943'" in message and "gfx942" in message and "Did you mean gfx942?" in message


def test_table_is_read_only():
    with pytest.raises(TypeError):
        arch.ARCHS["gfx000"] = None


def test_unknown_flavor_is_an_error_not_false():
    with pytest.raises(
        arch.UnknownArchError, match="expected a flavor in llvm20, llvm22, llvm23, llvm24, got 'llvm21'"
    ):
        arch.knows("llvm21", "gfx942")
