"""Compiles one case of a kernel family and reports its ISA metrics.

    rocke isa conv.img2col --list
    rocke isa conv.img2col --case 2d_nhwc_f16_3x3_gfx942
    rocke isa conv.img2col --case 2d_nhwc_f16_3x3_gfx942 --flavor llvm22 --json
    rocke isa --catalog resnet50-catalog

The case is lowered, verified, compiled (-O2) for its arch and linked by that
flavor's real LLVM, as `rocke emit --out K.hsaco` does, then disassembled by
that flavor's llvm-objdump (llvm20 is llvmlite, which has none: its code
object is read by the llvm-objdump of LLVM 22, whose linker it already
borrows, and the report says so). Reported:

  main loop      per iteration of the kernel's main machine loop (LLVM may
                 have unrolled the IR's loop into it; platform/isa/loops.py
                 defines it from the branch structure: the innermost natural
                 loop holding the most matrix instructions), every instruction
                 of its blocks counted once: matrix instructions, global loads
                 and stores, LDS reads and writes (count, bytes per lane and
                 instruction), waits and those for vmcnt(0), branches,
                 exec-mask writes, barriers (platform/isa/counts.py)
  whole kernel   the same counts over every instruction of the kernel once
                 (static): what a kernel without a loop does per lane
  LDS banks      a static model of bank conflicts of every LDS access of the
                 kernel IR (platform/isa/banks.py states what it can know)
  resources      the figures of the code object's AMDGPU metadata, occupancy
                 computed from the arch table (toolchains/llvm/llvm.py,
                 platform/arch/occupancy.py), and waves per workgroup

  run            with --run: the code object executed in the emulator
                 (platform/emu) on the numeric gate's inputs, as the machine
                 gate launches it (a wide grid: its corner and edge
                 workgroups): instructions executed by class per wave, waits,
                 LDS bank cycles from the real addresses and the static
                 model's worst conflict beside them (agreeing, or the reason
                 they differ), global memory segments, and whether the
                 outputs match numpy

With --catalog DIR (a folder `rocke build --out` wrote) it compiles
nothing: it reads every code object index.json names (checked against its
sha256 first) and prints a row per code object: its main loop's instructions,
matrix instructions, non-matrix per 4096 MACs, waits (for vmcnt(0)), cover,
VGPRs and occupancy (app/cli/isa_catalog.py). Progress goes to stderr.

--json prints one canonical JSON object (sorted keys, no whitespace).
"""

import sys

import numpy as np

from emu import emu
from emu.figures import compare_banks
from family import machine
from family.cases_json import canonical
from isa import analyze
from isa.objdump import ObjdumpError
from lower.flavors import FLAVORS, ArchDomainError
from toolchains.llvm.llvm import LlvmError
from app.cli import isa_catalog
from app.cli.inputs import Refused, default_flavor, find_case, list_cases, load_family, toolchain_for

HELP = "report the ISA metrics of a family case (main loop, whole kernel, LDS banks, resources) or of a catalog's code objects"


def add_arguments(parser):
    parser.add_argument("family", nargs="?", help="the family's module, e.g. conv.img2col (not with --catalog)")
    parser.add_argument(
        "--catalog",
        metavar="DIR",
        help="report every code object of a catalog folder (rocke build --out) instead of compiling a case",
    )
    parser.add_argument("--list", action="store_true", help="list the family's cases and stop")
    parser.add_argument("--case", help="the case id (see --list)")
    parser.add_argument(
        "--flavor",
        choices=sorted(FLAVORS),
        help="the LLVM flavor (default: the default toolchain's, see rocke toolchains)",
    )
    parser.add_argument("--json", action="store_true", help="print one canonical JSON object instead of tables")
    parser.add_argument(
        "--run",
        action="store_true",
        help=f"also run the code object in the emulator ({', '.join(emu.EMULATED)}) and add its dynamic figures",
    )


def _fail(message):
    print(f"rocke isa: {message}", file=sys.stderr)
    return 2


def report(fam, case_id, flavor, run=False):
    """The metrics of one case of Family `fam` as a JSON value (with `run`,
    its "run" section too); Refused for anything a user can cause."""
    case = find_case(fam, case_id)
    kernel = fam.build(case)
    tc = toolchain_for(flavor)
    try:
        built = analyze.build(kernel, tc)
        figures = analyze.report(kernel, tc, built)
    except (ArchDomainError, LlvmError, ObjdumpError) as e:
        raise Refused(str(e)) from None
    if run:
        figures["run"] = dynamic(fam, case, kernel, tc, built.code_object, figures["lds_banks"])
    return dict(
        figures, family=fam.name, case=case.id, arch=case.arch, flavor=flavor, llvm=tc.version, kernel=kernel.name
    )


def dynamic(fam, case, kernel, tc, code_object, static_banks):
    """The "run" section: the case launched as its machine gate launches it."""
    try:
        emu.check_arch(case.arch)
        launched = machine.run(
            case.id, fam.numeric(case), tc, code_object, kernel.name, kernel.attrs["workgroup_size"], figures=True
        )
    except (emu.ArchNotEmulated, machine.Mismatch) as e:
        raise Refused(f"--run: {e}") from None
    try:
        machine.compare(launched, tc, lambda: kernel)
        numbers = "match numpy"
    except machine.Mismatch as e:
        numbers = str(e).splitlines()[0]
    r = launched.result
    waves = max(r.waves, 1)
    return {
        "workgroups": len(r.workgroups),
        "grid_workgroups": int(np.prod(launched.numeric.grid)),
        "waves": r.waves,
        "per_wave": {name: round(count / waves, 1) for name, count in sorted(r.classes.items()) if count},
        "waits": sum(n for n, _ in r.waits.values()),
        "figures": r.figures,
        "banks": compare_banks(static_banks, r.figures),
        "numbers": numbers,
    }


def _catalog(args):
    others = {
        "FAMILY": args.family,
        "--case": args.case,
        "--list": args.list,
        "--flavor": args.flavor,
        "--run": args.run,
    }
    given = [name for name, value in others.items() if value]
    if given:
        return _fail(
            f"--catalog takes no {', '.join(others)} (each code object is read with its row's flavor), "
            f"got {', '.join(given)}; drop {'them' if len(given) > 1 else 'it'}, or drop --catalog to compile a case"
        )
    try:
        result = isa_catalog.report(args.catalog, sys.stderr)
    except Refused as e:
        return _fail(str(e))
    sys.stdout.write(canonical(result) + "\n" if args.json else isa_catalog.text(result))
    return 0


def run(args):
    if args.catalog is not None:
        return _catalog(args)
    if args.family is None:
        return _fail("expected a FAMILY (rocke isa conv.img2col --case ID) or --catalog DIR, got neither")
    try:
        fam = load_family(args.families, args.family)
        if args.list:
            return list_cases(fam)
        result = report(fam, args.case, args.flavor or default_flavor(), args.run)
    except Refused as e:
        return _fail(str(e))
    if args.json:
        print(canonical(result))
    else:
        sys.stdout.write(text(result))
    return 0


# -- the text form ---------------------------------------------------------------


def _memory(m):
    if not m["count"]:
        return "0"
    parts = ", ".join(
        f"{r['count']} {r['mnemonic']} ({r['bytes'] if r['bytes'] is not None else '?'} B)" for r in m["by_mnemonic"]
    )
    total = f"{m['bytes']} B" if m["bytes"] is not None else "? B"
    return f"{m['count']}: {parts}; {total} per lane"


def _n(count, noun):
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _count_rows(c):
    """The rows of counts.count's kinds (a main loop's or the whole kernel's)."""
    matrix = ", ".join(f"{r['count']} {r['mnemonic']}" for r in c["matrix"]["by_mnemonic"])
    return [
        ("matrix", f"{c['matrix']['count']}" + (f": {matrix}" if matrix else "")),
        ("global loads", _memory(c["global_loads"])),
        ("global stores", _memory(c["global_stores"])),
        ("LDS reads", _memory(c["lds_reads"])),
        ("LDS writes", _memory(c["lds_writes"])),
        ("waits", f"{c['waits']['count']}, {c['waits']['vmcnt0']} for vmcnt(0)"),
        ("branches", str(c["branches"])),
        ("exec writes", str(c["exec_writes"])),
        ("barriers", str(c["barriers"])),
    ]


def _loop_rows(loop):
    where = f"{loop['instructions']} in {_n(loop['blocks'], 'block')}, header at +{loop['header']:#x}, depth {loop['depth']} ({_n(loop['loops'], 'loop')} in the kernel)"
    c = loop["cover"]
    cover = "no global load" if c is None else f"{c['count']} of {c['of']} matrix instructions"
    per = loop["non_matrix_per_4096_macs"]
    figures = (
        f"{loop['loop_instructions']} instructions but scheduling hints, {loop['matrix']['macs']} MACs a wave, "
        f"{'-' if per is None else per} non-matrix per 4096 MACs, cover {cover}"
    )
    return [("instructions", where), ("figures", figures), *_count_rows(loop)]


def _bank_rows(model):
    rows = [("op", "access", "bytes", "loop", "cycles", "ideal", "ways", "note")]
    for a in model["accesses"]:
        note = a["reason"] or ("all lanes assumed active" if a["all_lanes_assumed"] else "")
        cells = [a["cycles"], a["ideal"], a["ways"]] if a["modelled"] else ["-", "-", "-"]
        rows.append((str(a["op"]), a["access"], str(a["bytes"]), str(a["loop_depth"]), *map(str, cells), note))
    return rows


def _table(rows, indent="  "):
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "".join(indent + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() + "\n" for r in rows)


def text(r):
    """The report as readable tables."""
    out = [f"{r['family']} {r['case']}: {r['arch']}, {r['flavor']} (LLVM {r['llvm']}), kernel {r['kernel']}\n"]
    out.append(f"disassembled by {r['disassembler']}\n\n")
    if r["main_loop"] is None:
        out.append("main loop: none (the kernel has no loop)\n")
    else:
        out.append("main loop, per iteration (every instruction of its blocks once)\n")
        out.append(_table(_loop_rows(r["main_loop"])))
    out.append("\nwhole kernel (every instruction once: each path of a branch, a loop's body once)\n")
    out.append(_table([("instructions", str(r["whole_kernel"]["instructions"])), *_count_rows(r["whole_kernel"])]))
    m = r["lds_banks"]
    out.append(
        f"\nLDS bank conflicts (model: {m['banks']} banks of {m['bank_bytes']} B; per IR access, worst wave; op = index in program order)\n"
    )
    if m["accesses"]:
        out.append(_table(_bank_rows(m)))
        worst = f", worst {m['worst_ways']}-way" if m["worst_ways"] else ""
        out.append(
            f"  {m['modelled']} modelled ({m['conflicted']} with conflicts{worst}): {m['cycles']} cycles against {m['ideal']} ideal; {m['not_modelled']} not modelled\n"
        )
    else:
        out.append("  the kernel has no LDS access\n")
    res = r["resources"]
    out.append("\nresources\n")
    names = (
        "vgpr",
        "agpr",
        "sgpr",
        "lds",
        "scratch",
        "vgpr_spill",
        "sgpr_spill",
        "occupancy",
        "wave_size",
        "workgroup_size",
        "waves_per_workgroup",
    )
    out.append(_table([names, tuple("-" if res[n] is None else str(res[n]) for n in names)]))
    if "run" in r:
        out.append(_run_text(r["run"]))
    return "".join(out)


def _run_text(d):
    f, b = d["figures"], d["banks"]
    sampled = "" if d["workgroups"] == d["grid_workgroups"] else " (its corner and edge workgroups)"
    out = [
        f"\nrun in the emulator: {d['workgroups']} of {d['grid_workgroups']} workgroups{sampled}, {d['waves']} waves\n"
    ]
    rows = [("executed per wave", ", ".join(f"{n} {c}" for n, c in d["per_wave"].items()))]
    rows.append(("waits", str(d["waits"])))
    worst = f", worst {f['lds_worst_ways']}-way" if f["lds_executions"] else ""
    rows.append(
        ("LDS", f"{f['lds_executions']} wave accesses, {f['lds_cycles']} cycles against {f['lds_ideal']} ideal{worst}")
    )
    verdict = "agree" if b["agree"] else f"differ: {b['why'] or 'unexplained'}"
    rows.append(
        (
            "banks",
            f"static model worst {b['static_worst_ways']}-way, real accesses {b['dynamic_worst_ways']}-way: {verdict}",
        )
    )
    rows.append(
        (
            "global memory",
            f"{f['memory_executions']} wave accesses, {f['memory_bytes']} bytes, {f['segments_64']} 64-byte and "
            f"{f['segments_128']} 128-byte segments",
        )
    )
    rows.append(("numbers", d["numbers"]))
    out.append(_table(rows))
    return "".join(out)
