"""The spec of conv_fwd_split_k_reduce (a split forward layer's reduce) and
its lane vector width: the facts the planner needs to choose and describe it,
apart from the builder (split_k_reduce.py), so that planning imports no
family's builder.
"""

import dataclasses
import math

from conv.spec import BELOW_2_63, MAX_INT64, ConvSpec, SpecError, check_tensor_bytes
from family.cases_json import plain_int
from family.family import Refusal

VECTORS = (4, 2, 1)  # lane vector widths, widest first


class ReduceSpecError(SpecError, Refusal):
    """conv_fwd_split_k_reduce cannot take this spec: names the field, what it takes, and the family that can."""


def vector_width(elements):
    """V: the widest lane vector that divides `elements`."""
    return next(v for v in VECTORS if elements % v == 0)


@dataclasses.dataclass(frozen=True)
class ReduceSpec:
    """The reduce of a split forward layer: the layer (its output's shape,
    layout, type, epilogue) and the split."""

    conv: ConvSpec
    split_k: int

    def __post_init__(self):
        if isinstance(self.conv, dict):
            object.__setattr__(self, "conv", ConvSpec.from_json(self.conv))
        if not isinstance(self.conv, ConvSpec):
            raise ReduceSpecError(
                f"ReduceSpec.conv: expected a ConvSpec, got {self.conv!r}", "ReduceSpec.conv", self.conv
            )
        split = plain_int(self.split_k)
        object.__setattr__(self, "split_k", split)
        if not isinstance(split, int) or isinstance(split, bool) or split < 2:
            raise ReduceSpecError(
                f"ReduceSpec.split_k: expected an int of at least 2, got {split!r}; an unsplit layer has no reduce (build conv_igemm_fwd with split_k 1)",
                "ReduceSpec.split_k",
                split,
            )
        if split > MAX_INT64:
            raise ReduceSpecError(
                f"ReduceSpec.split_k: expected an int of at least 2 and {BELOW_2_63}, got {split!r}",
                "ReduceSpec.split_k",
                split,
                MAX_INT64,
            )
        check_tensor_bytes(
            "ReduceSpec.split_k", "f32 workspace", (split, *self.conv.output_shape()), 4, "take a smaller split"
        )

    @property
    def elements(self):
        """E: the output's elements, one workspace slice."""
        return math.prod(self.conv.output_shape())

    def to_json(self):
        return {"conv": self.conv.to_json(), "split_k": self.split_k}

    @classmethod
    def from_json(cls, obj):
        if not isinstance(obj, dict) or sorted(obj) != ["conv", "split_k"]:
            raise ReduceSpecError(
                f"ReduceSpec: expected a JSON object with exactly the fields conv, split_k, got {obj!r}",
                "ReduceSpec",
                obj,
                ["conv", "split_k"],
            )
        return cls(**obj)
