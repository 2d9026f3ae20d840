"""Split-K selection and the CU table."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arch import arch
from helpers.helpers import CU_TABLE, num_cus, select_split_k


def test_cu_table_is_public_read_only_and_from_the_arch_table():
    assert CU_TABLE["gfx942"] == 304 == num_cus("gfx942")
    assert set(CU_TABLE) == set(arch.ARCHS)
    with pytest.raises(TypeError):
        CU_TABLE["gfx942"] = 1


def test_big_grid_needs_no_split():
    assert select_split_k(8192, 8192, 8192, "gfx942", 128, 128, 32) == 1


def test_skinny_problem_with_long_k_splits():
    # 1 workgroup, K long enough: split until max_split.
    assert select_split_k(64, 64, 65536, "gfx942", 64, 64, 32) == 16


def test_short_k_limits_the_split():
    # k = 256 with tile_k 32: at most 256 // (2 * 32) = 4 ways.
    assert select_split_k(64, 64, 256, "gfx942", 64, 64, 32) == 4


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="expected tile_k to be a positive int, got 0"):
        select_split_k(64, 64, 64, "gfx942", 64, 64, 0)
    with pytest.raises(arch.UnknownArchError):
        select_split_k(64, 64, 64, "gfx000", 64, 64, 16)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    st.integers(1, 1 << 14), st.integers(1, 1 << 14), st.integers(1, 1 << 16),
    st.sampled_from(sorted(arch.ARCHS)), st.sampled_from([16, 32, 64, 128]), st.sampled_from([16, 32, 64]),
)
def test_split_is_a_bounded_power_of_two_keeping_k_tiles(m, n, k, name, tile, tile_k):
    split = select_split_k(m, n, k, name, tile, tile, tile_k)
    assert 1 <= split <= 16 and split & (split - 1) == 0
    if split > 1:
        assert k // split >= tile_k
