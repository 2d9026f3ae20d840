"""platform/tile's 128x128x32 f16 GEMM tile beside Triton 3.9.0's, per arch.

    ./bazel run //tools/bench:tile [-- --json]

Builds the proof GEMM (platform/tile/gemm_example.py) with the tile of
TILES_128 (f16 in, f32 accumulate: 4 waves on gfx942 and gfx950, 8 on
gfx1201), compiles it with llvm23 and measures it with platform/isa (what
`rocke isa` reports). Prints, and writes to docs/figures/tile.md
(figures.py), a Markdown table per arch with Triton 3.9.0's
figures for the same tile, measured on this host when issue 9 was filed
(only those the issue records), and whether rocke meets issue 9's goal for
each: no spills, VGPRs at most and occupancy at least Triton's, per main-loop
iteration global-load bytes per instruction, vmcnt(0) waits and LDS fragment
reads at or better than Triton's, no modelled bank conflicts; beside them
the main loop's latency cover (platform/isa/cover.py). Static figures of the
code, not a speed: nothing runs on a GPU here.
"""

import argparse
import json
import sys

from isa import analyze
from tile.gemm_example import TILES_128, gemm_kernel
from toolchains.llvm.llvm import Toolchain
from tools.bench import figures

ARCHS = ("gfx942", "gfx950", "gfx1201")
# Triton 3.9.0's AOT compile of the same tile, as issue 9 records them (its
# latency cover as issue 19 does); a figure the issues do not give is absent.
TRITON = {
    "gfx942": {"vgpr": 142, "occupancy": 3, "load_bytes": 16, "vmcnt0": 1, "fragment_reads": 8, "cover": "8 of 16"},
    "gfx950": {"vgpr": 124, "occupancy": 4},
    "gfx1201": {"vgpr": 147, "occupancy": 9, "fragment_reads": 12},
}
# Figure -> (label, issue 9's goal: rocke's figure against Triton's).
GOALS = {
    "vgpr": ("VGPRs", lambda r, t: r <= t),
    "occupancy": ("occupancy (waves per SIMD)", lambda r, t: r >= t),
    "load_bytes": ("bytes per global load (main loop)", lambda r, t: r >= t),
    "vmcnt0": ("vmcnt(0) waits per iteration", lambda r, t: r <= t),
    "fragment_reads": ("LDS fragment reads per iteration", lambda r, t: r <= t),
}
# Goals with a fixed target rather than Triton's figure.
FIXED = {"spills": ("VGPR + SGPR spills", 0), "conflicts": ("LDS accesses with modelled bank conflicts", 0)}


def _mnemonics(kind):
    return ", ".join(f"{r['count']} {r['mnemonic']}" for r in kind["by_mnemonic"]) or "none"


def measure(arch, tc):
    """rocke's figures for the arch's tile (the GOALS keys plus context)."""
    cfg = TILES_128[arch]("f16")
    kernel, _ = gemm_kernel(arch, "f16", cfg)
    report = analyze.report(kernel, tc)
    loop, res = report["main_loop"], report["resources"]
    loads = loop["global_loads"]
    return {
        "waves": cfg.tile.waves,
        "op": cfg.op,
        "spills": res["vgpr_spill"] + res["sgpr_spill"],
        "vgpr": res["vgpr"],
        "occupancy": res["occupancy"],
        "load_bytes": min(r["bytes"] for r in loads["by_mnemonic"]),
        "vmcnt0": loop["waits"]["vmcnt0"],
        "fragment_reads": loop["lds_reads"]["count"],
        "conflicts": report["lds_banks"]["conflicted"],
        "cover": f"{loop['cover']['count']} of {loop['cover']['of']}",
        "global_loads": _mnemonics(loads),
        "lds_reads": _mnemonics(loop["lds_reads"]),
        "lds_writes": _mnemonics(loop["lds_writes"]),
        "matrix": _mnemonics(loop["matrix"]),
        "instructions": loop["instructions"],
        "branches": loop["branches"],
        "agpr": res["agpr"],
        "lds": res["lds"],
    }


def table(arch, rocke):
    triton = TRITON[arch]
    lines = [
        f"### {arch}, {rocke['waves']} waves ({rocke['op']}, llvm23)",
        "",
        "| | rocke | Triton 3.9.0 | goal met |",
        "|---|---|---|---|",
    ]
    for key, (label, goal) in GOALS.items():
        theirs, mine = triton.get(key), rocke[key]
        met = (
            "not measured"
            if mine is None
            else "no Triton figure"
            if theirs is None
            else "yes"
            if goal(mine, theirs)
            else "**no**"
        )
        lines.append(f"| {label} | {mine} | {'—' if theirs is None else theirs} | {met} |")
    for key, (label, target) in FIXED.items():
        lines.append(
            f"| {label} | {rocke[key]} | — | {'yes' if rocke[key] == target else '**no**'} (target {target}) |"
        )
    cover = triton.get("cover", "")
    lines.append(f"| latency cover (matrix ops between a load and its wait, least) | {rocke['cover']} | {cover} | |")
    for key, label in (
        ("global_loads", "global loads per iteration"),
        ("lds_reads", "LDS reads per iteration"),
        ("lds_writes", "LDS writes per iteration"),
        ("matrix", "matrix instructions per iteration"),
        ("instructions", "main-loop instructions"),
        ("branches", "main-loop branches"),
        ("agpr", "AGPRs"),
        ("lds", "LDS bytes"),
    ):
        lines.append(f"| {label} | {rocke[key]} | | |")
    return "\n".join(lines)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("toolchain", help="llvm23's toolchain.json (the py_binary passes it)")
    parser.add_argument(
        "--json", action="store_true", help="print {arch: {rocke, triton}} as JSON instead of the tables"
    )
    args = parser.parse_args(argv)
    tc = Toolchain.from_file(args.toolchain)
    measured = {arch: measure(arch, tc) for arch in ARCHS}
    body = "\n\n".join(table(arch, measured[arch]) for arch in ARCHS)
    shown = None
    if args.json:
        shown = json.dumps(
            {arch: {"rocke": measured[arch], "triton": TRITON[arch]} for arch in ARCHS}, indent=2, sort_keys=True
        )
    # --json changes what is printed, not the figures, so the file's command leaves it out.
    cmd = figures.command("//tools/bench:tile", __file__)
    return figures.publish("tile", "The 128x128x32 f16 tile beside Triton 3.9.0", cmd, body, shown)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
