"""conv_direct_fwd's numeric problem (common.numeric_check, which it shares
with conv_img2col; img2col_test checks that family's) starts every output as
NaN, so an element the kernel never writes fails the check."""

import numpy as np
import pytest

from conv import direct_fwd


def test_unwritten_outputs_fail_the_check():
    # An output starting as 0 would pass unwritten wherever the answer is 0 (a relu clips about half).
    for dtype in ("f32", "f16", "bf16"):
        case = next(c for c in direct_fwd.FAMILY.cases if c.spec.dtype == dtype)
        p = direct_fwd.FAMILY.numeric_check(case, np.random.default_rng(1))
        assert np.isnan(p.decode(p.args[2])).all(), case.id
        with pytest.raises(AssertionError, match=rf"^{case.id}: argument 2: {p.expected[2].values.size} of "):
            p.check(case.id)
