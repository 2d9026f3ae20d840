"""Builds one flavor's intrinsic availability table by probing its real LLVM.

    availability --toolchain @llvm22//:toolchain.json --out availability_llvm22.json

Every intrinsic the lowering calls in the coverage corpus
(lower/coverage.py) becomes a one-call probe kernel: the call exactly as
lowered, its non-constant operands loaded from memory, its result stored.
Each probe is compiled for every arch the flavor knows; it counts as
available where it verifies, compiles without an indirect call and links
with --no-undefined. The table maps each intrinsic name to those archs.

An intrinsic an arch lacks can make LLVM end its process ("Cannot select"),
so each probe of LLVM 22-24 runs in a child forked from this process, which
has the flavor's libLLVM and lld loaded once: a probe costs a fork and a
compile instead of three processes (opt, llc, ld.lld) that each start LLVM.
LLVM 20 already compiles in a worker process that may end (llvm.py).
"""

import argparse
import json
import os
import re
import sys
import traceback

from arch import arch as archs
from lower import flavors
from lower.coverage import corpus
from lower.llvm import lower
from toolchains.llvm import capi, lld_link
from toolchains.llvm.llvm import LlvmError, Toolchain

_CALL = re.compile(r"^  (?:(%\S+) = )?call (ptr addrspace\(\d+\)|<\d+ x \w+>|\S+) @(llvm\.[\w.]+)\((.*)\)$")


def _args(text):
    """Split 'T1 V1, T2 V2' at top-level commas (types such as <4 x half> have none)."""
    return [a.strip() for a in text.split(", ")] if text else []


def probe_module(flavor, declare, call_match, arch):
    result, ret, name, args = call_match.groups()
    lines, new_args = [], []
    for i, arg in enumerate(_args(args)):
        type_, value = arg.rsplit(" ", 1)
        if value.startswith("%"):
            lines.append(f"  %a{i} = load {type_}, ptr addrspace(1) %p, align 16")
            value = f"%a{i}"
        new_args.append(f"{type_} {value}")
    call = f"call {ret} @{name}({', '.join(new_args)})"
    if ret == "void":
        lines.append(f"  {call}")
    else:
        lines += [f"  %r = {call}", f"  store {ret} %r, ptr addrspace(1) %p, align 16"]
    f = flavors.get(flavor)
    return "\n".join(
        [
            f'target datalayout = "{f.datalayout}"',
            f'target triple = "{f.triple(arch)}"',
            declare,
            "",
            "define amdgpu_kernel void @probe(ptr addrspace(1) %p) #0 {",
            "entry:",
            *lines,
            "  ret void",
            "}",
            "",
            f'attributes #0 = {{ "target-cpu"="{arch}" }}',
            "",
        ]
    )


def calls(flavor, known):
    """intrinsic name -> (declare line, call match): the first call of each in the corpus."""
    out = {}
    for arch in known:
        for kernel in corpus(arch):
            lines = lower(kernel, flavor).splitlines()
            declares = {re.search(r"@(llvm\.[\w.]+)\(", l).group(1): l for l in lines if l.startswith("declare ")}
            for line in lines:
                match = _CALL.match(line)
                if match and match.group(3) not in out:
                    out[match.group(3)] = (declares[match.group(3)], match)
    return out


def _compiles(tc, arch, module):
    try:
        compiled = tc.compile(module, arch)
        if compiled.has_indirect_call:
            return False
        tc.link(compiled.obj)
        return True
    except LlvmError:
        return False


_AVAILABLE, _BROKEN = 0, 3  # a child's exit status; any other (LLVM's exit, a signal) is "not available"


def available(tc, arch, module):
    """Whether the probe `module` verifies, compiles without an indirect call and links for `arch`."""
    if tc.kind == "llvmlite":
        return _compiles(tc, arch, module)
    pid = os.fork()
    if pid == 0:
        # LLVM's words on a refusal ("LLVM ERROR: Cannot select") are not the table's business.
        words = os.dup(2)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
        status = _BROKEN
        try:
            status = _AVAILABLE if _compiles(tc, arch, module) else 1
        except BaseException:  # a fault of ours, not LLVM's refusal: the parent stops on it
            os.write(words, traceback.format_exc().encode())
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code == _BROKEN:
        raise RuntimeError(f"availability: the probe of {arch} failed in this program, not in LLVM (above)")
    return code == _AVAILABLE


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--toolchain", required=True, help="toolchain.json of the flavor to probe")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    tc = Toolchain.from_file(args.toolchain)
    if "library" in tc.tools:  # loaded here, so that no probe's child loads them again
        capi.load(tc.tools["library"])
        lld_link.load(tc.tools["linker"])
    known = sorted(a for a in archs.ARCHS if a in flavors.get(tc.flavor).cpus)
    found = calls(tc.flavor, known)
    print(
        f"availability: probing {len(found)} intrinsics on {len(known)} archs with {tc.flavor} ({tc.version})",
        file=sys.stderr,
    )
    table = {}
    for name, (declare, match) in sorted(found.items()):
        table[name] = [arch for arch in known if available(tc, arch, probe_module(tc.flavor, declare, match, arch))]
    doc = {"flavor": tc.flavor, "version": tc.version, "intrinsics": table}
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, args.out)
    missing = sorted(n for n, a in table.items() if not a)
    if missing:
        print(f"availability: {tc.flavor} compiles none of: {', '.join(missing)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
