"""The main loops of the ResNet-50 conv catalogs, per family and arch (issue 19's measure).

    python3 tools/bench/catalog_loops.py ISA_JSON...

Each ISA_JSON is `rocke isa --catalog DIR --json` of one catalog. Prints one
markdown table: a row per (family, arch) over the code objects whose main loop
holds matrix ops, each family's conv1 (the stem, C = 3) in a row of its own,
with the goals of issue 19 beside the medians. Used by catalog_loops.sh, which builds the
catalogs and heads the figure.
"""

import collections
import json
import statistics
import sys

STEM = "conv1"
FWD_STEM = f"conv_igemm_fwd ({STEM})"
# Issue 19's goals: non-matrix instructions per 4096 MACs, median over the layers, at most.
GOALS = {
    ("conv_igemm_fwd", "gfx942"): 2.5,
    ("conv_igemm_fwd", "gfx950"): 2.5,
    ("conv_igemm_fwd", "gfx1201"): 6.0,
    ("conv_igemm_dgrad", "gfx942"): 3.5,
    ("conv_igemm_dgrad", "gfx950"): 3.5,
    ("conv_igemm_wgrad", "gfx942"): 4.0,
    ("conv_igemm_wgrad", "gfx950"): 4.0,
    (FWD_STEM, "gfx942"): 8.0,
    (FWD_STEM, "gfx950"): 8.0,
    (FWD_STEM, "gfx1201"): 8.0,
}


class InputError(Exception):
    """An input file is not `rocke isa --json` output; the message says which and why."""


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        return data["code_objects"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputError(
            f"{path}: expected `rocke isa --catalog DIR --json` output, got {type(e).__name__}: {e}"
        ) from e


def _range(values):
    lo, hi = min(values), max(values)
    return str(lo) if lo == hi else f"{lo}-{hi}"


def rows(code_objects):
    """{(family, or "family (conv1)", arch): [code object]} of those with a matrix loop, and {same key: count of all}."""
    measured, total = collections.defaultdict(list), collections.Counter()
    for co in code_objects:
        key = (f"{co['family']} ({STEM})" if STEM in co["names"] else co["family"], co["arch"])
        total[key] += 1
        loop = co.get("main_loop")
        if loop and loop["matrix"]["count"]:
            measured[key].append(co)
    return measured, total


def _worst(cos):
    def share(co):
        cover = co["main_loop"]["cover"]
        return cover["count"] / cover["of"] if cover["of"] else 0.0

    co = min(cos, key=share)
    cover = co["main_loop"]["cover"]
    return f"{cover['count']} of {cover['of']} ({', '.join(co['names'][:2])})"


def table(code_objects):
    measured, total = rows(code_objects)
    families = sorted({f for f, _ in total})  # a family's conv1 row just after it
    archs = sorted({a for _, a in total})
    out = [
        "| kernels | arch | measured | cover >= 1/4 | worst cover | non-matrix / 4096 MACs (median) | goal | spills | VGPR | occupancy |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for family in families:
        for arch in archs:
            cos = measured.get((family, arch), [])
            if not cos:  # no matrix loop to measure (a reduce kernel, or no such kernel on this arch)
                continue
            quarter = sum(4 * co["main_loop"]["cover"]["count"] >= co["main_loop"]["cover"]["of"] > 0 for co in cos)
            median = statistics.median(float(co["main_loop"]["non_matrix_per_4096_macs"]) for co in cos)
            goal = GOALS.get((family, arch))
            verdict = "" if goal is None else f"<= {goal:g}: {'met' if median <= goal else 'missed'}"
            spills = sum(1 for co in cos if co["resources"]["vgpr_spill"] or co["resources"]["sgpr_spill"])
            out.append(
                f"| {family} | {arch} | {len(cos)} of {total[family, arch]} | {quarter} | {_worst(cos)} | "
                f"{median:.2f} | {verdict} | {spills} | {_range([co['resources']['vgpr'] for co in cos])} | "
                f"{_range([co['resources']['occupancy'] for co in cos])} |"
            )
    return "\n".join(out)


def main(argv):
    if not argv:
        print("catalog_loops: give the `rocke isa --catalog DIR --json` files to tabulate", file=sys.stderr)
        return 2
    try:
        code_objects = [co for path in argv for co in load(path)]
    except InputError as e:
        print(f"catalog_loops: {e}", file=sys.stderr)
        return 1
    print(table(code_objects))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
