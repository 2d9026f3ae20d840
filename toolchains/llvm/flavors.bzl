"""The four LLVM flavors and where each comes from. The one home of these facts
for Starlark; the measured behaviour of each is in platform/arch/flavor_facts.json,
whose versions //platform/arch:flavor_facts_test checks against LLVM_FLAVORS."""

# version: what the tool must report; anything else fails toolchain setup.
# package: the Debian package (its pinned version is in toolchains/sysroot/manifest).
# wheel: the PyPI wheel (its pinned version is in toolchains/llvm/llvmlite.lock).
# library: the package's shared libLLVM, which llvm.py compiles with in-process
#   (capi.py), in the pinned root.
# linker: the LLVM whose lld links the flavor's objects, in process
#   (//toolchains/llvm:lld_link_NN.so, from that LLVM's lld_archives, Debian's
#   liblld-NN) or as its ld.lld, the `lld` _with_lld adds.

def _with_lld(flavors):
    return {v: dict(f, lld = flavors[f["linker"]]["bin"] + "/ld.lld") for v, f in flavors.items()}

LLVM_FLAVORS = _with_lld({
    "20": {
        "version": "20.1.8",
        "kind": "llvmlite",
        "wheel": "llvmlite",
        # The environment build_root.sh creates from llvmlite.lock.
        "python": "/opt/rocke/llvm20/bin/python3",
        # llvmlite has no linker; LLVM 20 objects link with lld 22.
        "linker": "22",
    },
    "22": {"version": "22.1.8", "kind": "llc", "package": "llvm-22", "bin": "/usr/lib/llvm-22/bin", "library": "/usr/lib/x86_64-linux-gnu/libLLVM.so.22.1", "linker": "22", "lld_archives": "/usr/lib/llvm-22/lib"},
    "23": {"version": "23.1.4", "kind": "llc", "package": "llvm-23", "bin": "/usr/lib/llvm-23/bin", "library": "/usr/lib/x86_64-linux-gnu/libLLVM.so.23.1", "linker": "23", "lld_archives": "/usr/lib/llvm-23/lib"},
    "24": {"version": "24.0.0", "kind": "llc", "package": "llvm-24", "bin": "/usr/lib/llvm-24/bin", "library": "/usr/lib/x86_64-linux-gnu/libLLVM.so.24.0", "linker": "24", "lld_archives": "/usr/lib/llvm-24/lib"},
})

# The LLVMs whose lld links in process: each is some flavor's linker.
LLD_VERSIONS = sorted({f["linker"]: None for f in LLVM_FLAVORS.values()}.keys())

LLVM_VERSIONS = sorted(LLVM_FLAVORS.keys())

# The flavor commands and catalogs use when given none: each toolchain.json
# says whether it is this one (Toolchain.default).
DEFAULT_LLVM_VERSION = "23"
