"""What one main-loop iteration (or a whole kernel) holds: counts by kind,
from instruction text.

The counts are static: every instruction of the loop's blocks once, whichever
path a given iteration takes (a guarded path and its fallback both count).
They are those of the machine loop: where LLVM unrolled the IR's loop (LLVM 23
and 24 unroll small loops 4 times at -O2, with a remainder loop after), one
machine iteration holds several of the IR's.

Kinds (by mnemonic; `width` is the bytes one lane moves):
  matrix        v_mfma*, v_smfmac*, v_wmma*, v_swmmac*
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

_MATRIX = re.compile(r"^v_(mfma|smfmac|wmma|swmmac)")
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


def waits_vmcnt0(mnemonic, operands):
    if mnemonic == "s_waitcnt":
        return "vmcnt(0)" in operands.split()
    fields = [f.strip() for f in operands.split(",")]
    if mnemonic == "s_waitcnt_vmcnt":
        return fields == ["null", "0x0"] or fields == ["null", "0"]
    if mnemonic == "s_wait_loadcnt":
        return int(fields[0], 0) == 0
    if mnemonic == "s_wait_loadcnt_dscnt":
        return (int(fields[0], 0) >> 8) & 0x3F == 0
    return False


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
            "by_mnemonic": [{"mnemonic": r["mnemonic"], "count": r["count"]} for r in _by_mnemonic(matrix)],
        },
        "global_loads": _memory([i for i in insts if _GLOBAL_LOAD.match(i.mnemonic)]),
        "global_stores": _memory([i for i in insts if _GLOBAL_STORE.match(i.mnemonic)]),
        "lds_reads": _memory([i for i in insts if _LDS_READ.match(i.mnemonic)]),
        "lds_writes": _memory([i for i in insts if _LDS_WRITE.match(i.mnemonic)]),
        "waits": {"count": len(waits), "vmcnt0": sum(1 for i in waits if waits_vmcnt0(i.mnemonic, i.operands))},
        "branches": sum(1 for i in insts if i.is_branch),
        "exec_writes": sum(1 for i in insts if writes_exec(i.mnemonic, i.operands)),
        "barriers": sum(1 for i in insts if i.mnemonic in ("s_barrier", "s_barrier_wait")),
    }
