"""How a softmax spec's rows map onto an arch's lanes (library/softmax/softmax.py says why): the kernel
builds from it and the planner explains it."""

import dataclasses

from arch import arch as archs


@dataclasses.dataclass(frozen=True)
class Plan:
    """How a spec's rows map onto `arch`'s lanes."""

    wave: int  # lanes of a wave
    vector: int  # elements a lane loads or stores at once
    vectors: int  # vectors of a row
    group: int  # lanes that hold one row: a power of two, at most the wave
    rows_per_block: int  # rows a workgroup holds
    per_lane: int  # vectors of a row each lane holds
    one_pass: bool  # per_lane vectors fit lane_elements: the row is read once
    step: int  # vectors a lane reads at a time in the two-pass form

    def grid(self, rows):
        return (-(-rows // self.rows_per_block), 1, 1)


def plan(spec, arch):
    """The Plan of `spec` on `arch` (its default wave size)."""
    wave = archs.get(arch).wave_sizes[0]
    vector = spec.vector
    vectors = spec.dim // vector
    group = min(wave, 1 << (vectors - 1).bit_length())
    per_lane = -(-vectors // group)
    step = max(1, spec.lane_elements // vector)
    return Plan(
        wave,
        vector,
        vectors,
        group,
        spec.waves * wave // group,
        per_lane,
        per_lane * vector <= spec.lane_elements,
        step,
    )


def describe(p):
    """The plan in a few words, as the planner's config column shows it."""
    passes = "one pass" if p.one_pass else f"two passes, {p.step * p.vector} elements a lane a step"
    return f"{passes}, a row per {p.group} lane{'s' * (p.group > 1)}, {p.vector}-element vectors"
