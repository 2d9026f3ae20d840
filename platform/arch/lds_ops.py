"""The arch-limited memory ops: one JSON data file (lds_ops.json), read by
Python here and by the C++ mirror (platform/lower/cpp). Per IR op, the
intrinsic that lowers it and the archs that have the instruction:

    LDS_OPS["mem.load_transpose"].intrinsic   # "llvm.amdgcn.ds.read.tr16.b64"
    LDS_OPS["mem.load_transpose"].archs       # ("gfx950",)
    LDS_OPS["mem.load_transpose"].group       # 16: lanes that exchange data

Measured with the real LLVMs (2026-12-01; the availability probes,
//platform/arch:availability_llvmNN, re-measure it at every build):
`llvm.amdgcn.ds.read.tr16.b64.v4f16` (and .v4bf16, .v4i16) compiles to
`ds_read_b64_tr_b16`, and `llvm.amdgcn.global.load.lds` with 16 bytes to
`global_load_lds_dwordx4`, for gfx950 with llvm20 (llvmlite), 22, 23 and 24;
for gfx942, gfx1201 and gfx1250 every one of them ends in "LLVM ERROR:
Cannot select" (an abort), so the lowering refuses them there before LLVM
runs. The newer spelling `llvm.amdgcn.load.to.lds.p1` compiles with 22-24
but is unknown to llvm20 (a silent external call): not used. The buffer
form, `llvm.amdgcn.raw.ptr.buffer.load.lds` with 16 bytes (resource, LDS
address, size, lane offset, wave offset, offset, aux), compiles to
`buffer_load_dwordx4 vN, s[..], sM offen lds` for gfx950 with all four
(2026-12-01, the resource made by each flavor's make.buffer.rsrc).

A direct load writes LDS asynchronously, counted by vmcnt: a workgroup
barrier must wait for it before another wave reads what it wrote. LLVM 22,
23 and 24 put `s_waitcnt vmcnt(0)` before `s_barrier` in such a kernel;
LLVM 20 does not (measured on the gfx950 GEMM tile: its one vmcnt(0) comes
after the barrier, at the next reads, which waits for the wave's own loads
only). So `barrier_wait` is the `s_waitcnt` immediate the lowering puts
before every barrier of a kernel with the op (`llvm.amdgcn.s.waitcnt`):
3952 = 0x0F70, vmcnt(0) with expcnt and lgkmcnt at their maximum (gfx9's
encoding: vmcnt bits 3:0 and 15:14, expcnt 6:4, lgkmcnt 11:8).
"""

import dataclasses
import json
import os

from arch.arch import ARCHS
from arch.schema import Schema

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lds_ops.json")
# The IR ops this file may name (platform/ir/ops.json has their schemas).
OPS = ("buffer.load_to_lds", "mem.load_to_lds", "mem.load_transpose")
# Those that write LDS asynchronously: their entry names a barrier_wait.
ASYNC = ("buffer.load_to_lds", "mem.load_to_lds")
# Those whose lanes exchange data: their entry names the group of lanes that do.
GROUPED = ("mem.load_transpose",)


class LdsOpsError(ValueError):
    """lds_ops.json breaks its schema."""


_S = Schema(LdsOpsError, "platform/arch/lds_ops.py")


@dataclasses.dataclass(frozen=True)
class LdsOp:
    intrinsic: str
    archs: tuple
    barrier_wait: int | None = (
        None  # s_waitcnt immediate before a barrier of a kernel with this op (asynchronous ops only)
    )
    group: int | None = None  # lanes of a wave that exchange data, all active or none (GROUPED ops only)


def load(path=PATH):
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    _S.check(isinstance(raw, dict), "lds_ops.json", "an object of IR op name -> entry", raw)
    out = {}
    for name in sorted(raw):
        where = f"lds_ops.json: {name}"
        _S.choice(name, OPS, where)
        keys = ["archs", "intrinsic"] + ["barrier_wait"] * (name in ASYNC) + ["group"] * (name in GROUPED)
        _S.keys(raw[name], sorted(keys), where)
        _S.name(raw[name]["intrinsic"], f"{where}.intrinsic")
        archs = _S.names(raw[name]["archs"], f"{where}.archs")
        for a in archs:
            _S.choice(a, sorted(ARCHS), f"{where}.archs")
        wait = raw[name].get("barrier_wait")
        if wait is not None:
            _S.int_in(wait, 0, 0xFFFF, f"{where}.barrier_wait")  # an s_waitcnt immediate
        group = raw[name].get("group")
        if group is not None:
            _S.int_in(group, 1, 64, f"{where}.group")  # lanes of one wave
        out[name] = LdsOp(raw[name]["intrinsic"], archs, wait, group)
    return out


LDS_OPS = load()
