"""What each LLVM flavor accepts and rejects, as measured.

Source: the team's measurements in shared/notes/llvm-flavors.md (Q1 triples,
Q2 datalayouts, Q3 processors). conformance_test.py asserts every row against
the real toolchain, so a new LLVM that changes one fails loudly. The lowering's
flavor table takes its triples, datalayouts and CPU lists from here.
"""

FLAVORS = ("llvm20", "llvm22", "llvm23", "llvm24")

VERSION = {"llvm20": "20.1.8", "llvm22": "22.1.8", "llvm23": "23.1.4", "llvm24": "24.0.0"}

# Q1: compiling a gfx950 kernel with -mtriple=T. "ok" = exit 0 and no warning,
# "warn" = exit 0 with a deprecation warning, "reject" = an error.
TRIPLES = {
    "amdgcn-amd-amdhsa": {"llvm20": "ok", "llvm22": "ok", "llvm23": "ok", "llvm24": "warn"},
    "amdgcn--amdhsa": {"llvm20": "ok", "llvm22": "ok", "llvm23": "ok", "llvm24": "warn"},
    "amdgpu-amd-amdhsa": {"llvm20": "reject", "llvm22": "reject", "llvm23": "ok", "llvm24": "warn"},
    "amdgpu9.50-amd-amdhsa": {"llvm20": "reject", "llvm22": "reject", "llvm23": "ok", "llvm24": "ok"},
}

# Q2: the datalayout each target machine uses (independent of CPU and OS).
_DL_COMMON = (
    "p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-{p8}-p9:192:256:256:32{extra}"
    "-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048"
    "-n32:64-S32-A5-G1-ni:7:8:9"
)
_DL_P10_P15 = "".join(f"-p{n}:32:32" for n in range(10, 16))
DATALAYOUT = {
    "llvm20": "e-p:64:64-" + _DL_COMMON.format(p8="p8:128:128", extra=""),
    "llvm22": "e-m:e-p:64:64-" + _DL_COMMON.format(p8="p8:128:128:128:48", extra=""),
    "llvm23": "e-m:e-p:64:64-" + _DL_COMMON.format(p8="p8:128:128:128:48", extra=""),
    "llvm24": "e-m:e-p:64:64-" + _DL_COMMON.format(p8="p8:128:128:128:48", extra=_DL_P10_P15),
}

# Q3: of the architectures rocke targets, which each flavor compiles. This is
# the one list: the lowering accepts exactly these (platform/lower/flavors.py)
# and `rocke toolchains` prints them; conformance_test compiles each.
TARGET_CPUS = ("gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1151", "gfx1201", "gfx1250")
CPUS = {
    "llvm20": ("gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1151", "gfx1201"),
    "llvm22": TARGET_CPUS,
    "llvm23": TARGET_CPUS,
    "llvm24": TARGET_CPUS,
}

# Q6: only llc prints "; Occupancy: N"; llvmlite's assembly has no comments.
REPORTS_OCCUPANCY = {"llvm20": False, "llvm22": True, "llvm23": True, "llvm24": True}
