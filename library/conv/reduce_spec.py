"""The spec of conv_fwd_split_k_reduce (the reduce of a split layer) and
its lane vector width: the facts the planner needs to choose and describe it,
apart from the builder (split_k_reduce.py), so that planning imports no
family's builder.

ReduceSpec.tensor says which tensor of the layer the reduce finishes:

    "y"   the forward output (conv_igemm_fwd split-K), through the layer's
          epilogue; the default, left out of the JSON.
    "dw"  the weight gradient (conv_igemm_wgrad two-stage), in dw's shape and
          layout; a weight gradient has no epilogue, so the conv has none.
"""

import dataclasses
import math

from conv.spec import BELOW_2_63, MAX_INT64, ConvSpec, SpecError, check_tensor_bytes
from family.cases_json import plain_int
from family.family import Refusal

VECTORS = (4, 2, 1)  # lane vector widths, widest first
TENSORS = ("y", "dw")  # ReduceSpec.tensor, the default first


class ReduceSpecError(SpecError, Refusal):
    """conv_fwd_split_k_reduce cannot take this spec: names the field, what it takes, and the family that can."""


def vector_width(elements):
    """V: the widest lane vector that divides `elements`."""
    return next(v for v in VECTORS if elements % v == 0)


@dataclasses.dataclass(frozen=True)
class ReduceSpec:
    """The reduce of a split layer: the layer (its output's shape, layout,
    type, epilogue), the split and the tensor it finishes (module doc)."""

    conv: ConvSpec
    split_k: int
    tensor: str = TENSORS[0]

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
        if self.tensor not in TENSORS:
            raise ReduceSpecError(
                f"ReduceSpec.tensor: expected one of {', '.join(TENSORS)}, got {self.tensor!r}",
                "ReduceSpec.tensor",
                self.tensor,
                list(TENSORS),
            )
        found = self.conv.epilogue_field()
        if self.tensor == "dw" and found is not None:  # a weight gradient has no epilogue to apply
            field, value, default = found
            raise ReduceSpecError(
                f"ConvSpec.{field}: expected {default!r} (a weight gradient's reduce applies no epilogue), "
                f"got {value!r}; drop {field}",
                f"ConvSpec.{field}",
                value,
                [default],
            )
        check_tensor_bytes("ReduceSpec.split_k", "f32 workspace", (split, *self.shape), 4, "take a smaller split")

    @property
    def shape(self):
        """The shape of the tensor the reduce finishes, one workspace slice."""
        return self.conv.output_shape() if self.tensor == "y" else self.conv.weight_shape()

    @property
    def elements(self):
        """E: the finished tensor's elements, one workspace slice."""
        return math.prod(self.shape)

    def to_json(self):
        tensor = {} if self.tensor == TENSORS[0] else {"tensor": self.tensor}
        return {"conv": self.conv.to_json(), "split_k": self.split_k, **tensor}

    @classmethod
    def from_json(cls, obj):
        if not isinstance(obj, dict) or sorted(set(obj) - {"tensor"}) != ["conv", "split_k"]:
            raise ReduceSpecError(
                f"ReduceSpec: expected a JSON object with the fields conv, split_k and optionally tensor, got {obj!r}",
                "ReduceSpec",
                obj,
                ["conv", "split_k", "tensor"],
            )
        return cls(**obj)
