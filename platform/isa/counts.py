"""What one main-loop iteration (or a whole kernel) holds: counts by kind,
from instruction text.

The counts are static: every instruction of the loop's blocks once, whichever
path a given iteration takes (a guarded path and its fallback both count).
They are those of the machine loop: where LLVM unrolled the IR's loop (LLVM 23
and 24 unroll small loops 4 times at -O2, with a remainder loop after), one
machine iteration holds several of the IR's.

Kinds (by mnemonic; `width` is the bytes one lane moves):
  matrix        v_mfma*, v_smfmac*, v_wmma*, v_swmmac* (not v_mfma_ld_scale*, which
                loads scales for the next one), with the MACs of one wave: M*N*K
                of the shape the mnemonic spells, times its blocks (`_2b`, `_4b`,
                `_16b`, or the gfx908/gfx90a spellings of those forms, which do
                not say it: 32x32x1f32 is two 32x32x1 products); sparse forms
                (smfmac, swmmac) count the K they spell
  scheduling hints  s_nop, s_delay_alu, s_wait_alu, s_clause, s_waitcnt_depctr,
                s_set_vgpr_msb: they issue no work, and a loop's instructions
                (metrics.py) leave them out
  global loads  global_load*, buffer_load*, flat_load* (rocke never reaches
                LDS or scratch through flat); direct-to-LDS loads included
  global stores global_store*, buffer_store*, flat_store* (atomics are not
                stores)
  LDS reads     ds_read*, ds_load*;  LDS writes: ds_write*, ds_store*
  waits         s_waitcnt* (gfx9-11; not _depctr) and s_wait_*cnt* (gfx12); a wait for
                vmcnt(0) is `s_waitcnt ... vmcnt(0) ...`, `s_waitcnt_vmcnt
                null, 0x0`, `s_wait_loadcnt 0x0`, or `s_wait_loadcnt_dscnt`
                whose loadcnt field (bits 13:8, LLVM's
                getLoadcntStorecntBitShift) is 0
  branches      s_branch, s_cbranch_*
  exec writes   *saveexec*, *wrexec*, v_cmpx_*, or any instruction whose
                destination (first operand) is exec, exec_lo or exec_hi
  barriers      s_barrier, s_barrier_wait (gfx12 splits signal and wait)
"""

import re

_MATRIX = re.compile(r"^v_(mfma(?!_ld_)|smfmac|wmma|swmmac)")
HINTS = frozenset(("s_nop", "s_delay_alu", "s_wait_alu", "s_clause", "s_waitcnt_depctr", "s_set_vgpr_msb"))
# M, N and K, then the blocks: `_4b` spelled, or a type glued to K (gfx908/gfx90a).
_SHAPE = re.compile(r"_(\d+)x(\d+)x(\d+)(?:_(\d+)b(?=_|$)|([a-z]\w*))?")
# The older spellings of blocked forms (gfx90a's names; gfx940 renamed them
# with the blocks spelled, 32x32x1f32 -> 32x32x1_2b_f32: AMD's CDNA3 ISA).
_GLUED_BLOCKS = {
    "32x32x1f32": 2, "16x16x1f32": 4, "4x4x1f32": 16,
    "32x32x4f16": 2, "16x16x4f16": 4, "4x4x4f16": 16,
    "32x32x4i8": 2, "16x16x4i8": 4, "4x4x4i8": 16,
    "32x32x2bf16": 2, "16x16x2bf16": 4, "4x4x2bf16": 16,
    "32x32x4bf16_1k": 2, "16x16x4bf16_1k": 4, "4x4x4bf16_1k": 16,
    "4x4x4f64": 4,
}  # fmt: skip
_GLOBAL_LOAD = re.compile(r"^(global|buffer|flat)_load")
_GLOBAL_STORE = re.compile(r"^(global|buffer|flat)_store")
_LDS_READ = re.compile(r"^ds_(read|load)")
_LDS_WRITE = re.compile(r"^ds_(write|store)")
# Memory-counter waits; s_waitcnt_depctr (gfx10/11) and s_wait_alu (gfx12)
# wait for ALU dependencies, not memory, and are left out.
_WAIT = re.compile(r"^s_wait(cnt(?!_depctr)\w*|_\w*cnt\w*)$")
_EXEC = ("exec", "exec_lo", "exec_hi")

# Width tokens of a memory mnemonic -> bytes per lane. The first one after the
# operation counts: ds_read_b64_tr_b16 moves 8 bytes, ds_read_u16_d16_hi 2.
_WIDTHS = {
    "byte": 1, "ubyte": 1, "sbyte": 1, "u8": 1, "i8": 1, "b8": 1,
    "short": 2, "ushort": 2, "sshort": 2, "u16": 2, "i16": 2, "b16": 2,
    "dword": 4, "b32": 4, "dwordx2": 8, "b64": 8, "dwordx3": 12, "b96": 12, "dwordx4": 16, "b128": 16,
}  # fmt: skip
# Two addresses per lane: ds_read2_b32, ds_read2st64_b64, ds_load_2addr_b32, ...
_PAIRED = re.compile(r"^ds_(read2|write2|load_2addr|store_2addr)")


def is_matrix(mnemonic):
    return bool(_MATRIX.match(mnemonic))


def is_global_load(mnemonic):
    return bool(_GLOBAL_LOAD.match(mnemonic))


_MEMORY = re.compile(r"^((global|buffer|flat|scratch|tbuffer)_(load|store|atomic)|ds_)")


def kind(mnemonic):
    """What loops.main_loop weighs: "matrix", "memory" (vector memory or LDS), "hint" or None."""
    if is_matrix(mnemonic):
        return "matrix"
    if _MEMORY.match(mnemonic):
        return "memory"
    return "hint" if mnemonic in HINTS else None


class ShapeError(ValueError):
    """A matrix mnemonic that spells no MxNxK shape."""


def macs(mnemonic):
    """Multiply-accumulates one wave issues with matrix instruction `mnemonic`
    (see the module doc); ShapeError when it spells no shape."""
    match = _SHAPE.search(mnemonic)
    if not match:
        raise ShapeError(
            f"counts: expected a matrix mnemonic with an MxNxK shape (v_mfma_f32_16x16x16_f16), got {mnemonic!r}"
        )
    m, n, k, spelled, glued = match.groups()
    blocks = int(spelled) if spelled else _GLUED_BLOCKS.get(f"{m}x{n}x{k}{glued or ''}", 1)
    return int(m) * int(n) * int(k) * blocks


def width(mnemonic):
    """Bytes one lane moves, or None when the mnemonic does not say (format loads)."""
    tokens = mnemonic.split("_")[2:]
    size = next((_WIDTHS[t] for t in tokens if t in _WIDTHS), None)
    if size is not None and _PAIRED.match(mnemonic):
        size *= 2
    return size


def writes_exec(mnemonic, operands):
    if "saveexec" in mnemonic or "wrexec" in mnemonic or mnemonic.startswith("v_cmpx_"):
        return True
    return operands.split(",")[0].strip() in _EXEC


_VMCNT = re.compile(r"^vmcnt\((\d+)\)$")


def vm_wait(mnemonic, operands):
    """N when the wait waits until at most N vector-memory loads are
    outstanding (vmcnt(N), gfx12's loadcnt N), else None (no such field)."""
    if mnemonic == "s_waitcnt":
        found = [int(m.group(1)) for m in map(_VMCNT.match, operands.split()) if m]
        return found[0] if found else None
    fields = [f.strip() for f in operands.split(",")]
    if mnemonic == "s_waitcnt_vmcnt":
        return int(fields[1], 0) if len(fields) == 2 and fields[0] == "null" else None
    if mnemonic == "s_wait_loadcnt":
        return int(fields[0], 0)
    if mnemonic == "s_wait_loadcnt_dscnt":
        return (int(fields[0], 0) >> 8) & 0x3F
    return None


def waits_vmcnt0(mnemonic, operands):
    return vm_wait(mnemonic, operands) == 0


def _by_mnemonic(insts):
    """[{mnemonic, count, bytes}] sorted by mnemonic."""
    seen = {}
    for i in insts:
        seen[i.mnemonic] = seen.get(i.mnemonic, 0) + 1
    return [{"mnemonic": m, "count": n, "bytes": width(m)} for m, n in sorted(seen.items())]


def _memory(insts):
    rows = _by_mnemonic(insts)
    known = all(r["bytes"] is not None for r in rows)
    return {
        "count": len(insts),
        "bytes": sum(r["count"] * r["bytes"] for r in rows) if known else None,
        "by_mnemonic": rows,
    }


def count(insts):
    """The counts of a sequence of Instruction (objdump.py), as a JSON-ready dict."""
    matrix = [i for i in insts if is_matrix(i.mnemonic)]
    waits = [i for i in insts if _WAIT.match(i.mnemonic)]
    return {
        "instructions": len(insts),
        "matrix": {
            "count": len(matrix),
            "macs": sum(macs(i.mnemonic) for i in matrix),
            "by_mnemonic": [
                {"mnemonic": r["mnemonic"], "count": r["count"], "macs": macs(r["mnemonic"])}
                for r in _by_mnemonic(matrix)
            ],
        },
        "scheduling_hints": sum(1 for i in insts if i.mnemonic in HINTS),
        "global_loads": _memory([i for i in insts if _GLOBAL_LOAD.match(i.mnemonic)]),
        "global_stores": _memory([i for i in insts if _GLOBAL_STORE.match(i.mnemonic)]),
        "lds_reads": _memory([i for i in insts if _LDS_READ.match(i.mnemonic)]),
        "lds_writes": _memory([i for i in insts if _LDS_WRITE.match(i.mnemonic)]),
        "waits": {"count": len(waits), "vmcnt0": sum(1 for i in waits if waits_vmcnt0(i.mnemonic, i.operands))},
        "branches": sum(1 for i in insts if i.is_branch),
        "exec_writes": sum(1 for i in insts if writes_exec(i.mnemonic, i.operands)),
        "barriers": sum(1 for i in insts if i.mnemonic in ("s_barrier", "s_barrier_wait")),
    }
