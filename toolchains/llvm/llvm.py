"""One interface to every LLVM flavor: verify, compile, link, resource figures.

A Toolchain is built from the toolchain.json that the @llvmNN repository
wrote (extensions.bzl, setup.py). Rules and tests reach the toolchain of the
current --//toolchains/llvm:version through the ROCKE_LLVM environment variable,
which names that file in the runfiles (see defs.bzl).

Every call runs the real LLVM in a subprocess: Debian's llc/opt for 22-24, and
llvmlite_driver.py in the llvm20 environment for 20 (whose LLVM aborts the
process on some inputs).
"""

import base64
import dataclasses
import json
import os
import re
import subprocess
import tempfile

_HERE = os.path.dirname(os.path.abspath(__file__))
_LLVMLITE_DRIVER = os.path.join(_HERE, "llvmlite_driver.py")
_LINK_BATCH = 256  # modules per llvm-link run in verify_many


class LlvmError(Exception):
    """The real LLVM rejected its input. The message carries LLVM's own words."""


@dataclasses.dataclass(frozen=True)
class Compiled:
    cpu: str
    obj: bytes
    asm: str
    warnings: str  # what LLVM wrote to stderr on success

    @property
    def has_indirect_call(self):
        # An intrinsic name this LLVM does not know compiles to a call through
        # a pointer; the resource symbols then report has_indirect_call, 1.
        return re.search(r"\.set \S*has_indirect_call, 1\b", self.asm) is not None


# Resource figure -> regex over the assembly. The amdhsa metadata carries all
# but occupancy, which only llc's "; Occupancy:" comment reports (llvmlite's
# assembly has no comments).
_RESOURCES = {
    "vgpr": r"\.vgpr_count:\s+(\d+)",
    "agpr": r"\.agpr_count:\s+(\d+)",
    "sgpr": r"\.sgpr_count:\s+(\d+)",
    "lds": r"\.group_segment_fixed_size:\s+(\d+)",
    "scratch": r"\.private_segment_fixed_size:\s+(\d+)",
    "vgpr_spill": r"\.vgpr_spill_count:\s+(\d+)",
    "sgpr_spill": r"\.sgpr_spill_count:\s+(\d+)",
    "wave_size": r"\.wavefront_size:\s+(\d+)",
    # The lowering states the kernel's size as amdgpu-flat-work-group-size="1,N".
    "workgroup_size": r"\.max_flat_workgroup_size:\s+(\d+)",
    "occupancy": r"; Occupancy:\s+(\d+)",
}


def resources(asm):
    """Resource figures of the first kernel in `asm`; None where not reported."""
    figures = {}
    for name, pattern in _RESOURCES.items():
        match = re.search(pattern, asm)
        figures[name] = int(match.group(1)) if match else None
    return figures


def _run(argv, stdin=None, what=""):
    proc = subprocess.run(argv, input=stdin, capture_output=True, timeout=600)
    stderr = proc.stderr.decode(errors="replace")
    if proc.returncode != 0:
        reason = f"killed by signal {-proc.returncode}" if proc.returncode < 0 else f"exit {proc.returncode}"
        raise LlvmError(f"{what or os.path.basename(argv[0])} failed ({reason}): {stderr.strip()}")
    return proc.stdout, stderr


class Toolchain:
    def __init__(self, config):
        self.flavor = config["flavor"]
        self.version = config["version"]
        self.source = config["source"]
        self.kind = config["kind"]
        self.tools = config["tools"]
        self.lld = self.tools.get("lld") or os.path.join(self.tools["bin"], "ld.lld")
        # llvmlite has no disassembler: LLVM 20 code objects are read by the
        # llvm-objdump beside the linker it borrows (lld 22).
        self.objdump = os.path.join(os.path.dirname(self.lld), "llvm-objdump")

    @classmethod
    def from_file(cls, path):
        with open(path) as f:
            return cls(json.load(f))

    @classmethod
    def current(cls):
        """The toolchain the test was built for (ROCKE_LLVM, set by defs.bzl)."""
        path = os.environ.get("ROCKE_LLVM")
        if not path:
            raise LlvmError(
                "ROCKE_LLVM is not set: this target must run under an llvm_test "
                "wrapper (toolchains/llvm/defs.bzl), which names the toolchain."
            )
        return cls.from_file(_runfile(path))

    # -- the llc flavors -----------------------------------------------------

    def _bin(self, tool):
        return os.path.join(self.tools["bin"], tool)

    # -- the llvmlite flavor ---------------------------------------------------

    def _llvmlite(self, op, ir="", **flags):
        argv = [self.tools["python"], _LLVMLITE_DRIVER, op]
        for key, value in flags.items():
            if value:
                argv += [f"--{key}", value]
        out, err = _run(argv, ir.encode(), what=f"LLVM {self.version} (llvmlite) {op}")
        return json.loads(out), err

    # -- the interface ---------------------------------------------------------

    def reported_version(self):
        """The version the tool itself reports (not the declared one)."""
        if self.kind == "llvmlite":
            return self._llvmlite("version")[0]["version"]
        out, _ = _run([self._bin("llc"), "--version"])
        return re.search(r"LLVM version (\S+)", out.decode()).group(1)

    def verify(self, ir):
        """Parse and verify `ir`; raise LlvmError with LLVM's message if invalid."""
        if self.kind == "llvmlite":
            self._llvmlite("verify", ir)
        else:
            _run([self._bin("opt"), "-passes=verify", "-disable-output", "-"], ir.encode(), what="opt -passes=verify")

    def reprint(self, ir):
        """`ir` parsed and printed back (llvm-as | llvm-dis): what this LLVM makes of it,
        AutoUpgrade included. Raises LlvmError if it does not parse and verify."""
        if self.kind == "llvmlite":
            return self._llvmlite("reprint", ir)[0]["ir"]
        bitcode, _ = _run([self._bin("llvm-as"), "-", "-o", "-"], ir.encode(), what="llvm-as")
        text, _ = _run([self._bin("llvm-dis"), "-", "-o", "-"], bitcode, what="llvm-dis")
        return text.decode()

    def verify_many(self, irs):
        """Verify each module of `irs` on its own, many per process (for fuzzing).

        Returns one entry per module: None if LLVM accepts it, else LLVM's
        message. LLVM 20: llvmlite_driver.py's verify_many parses and verifies
        each module in turn. The others: llvm-link with
        --disable-debug-info-type-map verifies every input module before it
        links it (--only-needed: modules may define the same names) and stops
        at the first broken one; that module's verdict is then
        `opt -passes=verify` on it alone, and the run goes on from the next.
        """
        if self.kind == "llvmlite":
            return self._llvmlite_verify_many(irs)
        # Batches bound the work a broken module costs: the rest of its batch.
        return [v for i in range(0, len(irs), _LINK_BATCH) for v in self._link_verify(irs[i : i + _LINK_BATCH])]

    def _link_verify(self, irs):
        verdicts = [None] * len(irs)
        with tempfile.TemporaryDirectory() as tmp:
            paths = [os.path.join(tmp, f"m{i}.ll") for i in range(len(irs))]
            for path, ir in zip(paths, irs):
                with open(path, "w") as f:
                    f.write(ir)
            start = 0
            while start < len(irs):
                argv = [self._bin("llvm-link"), "--disable-debug-info-type-map", "--only-needed", "-o", os.devnull, *paths[start:]]
                proc = subprocess.run(argv, capture_output=True, timeout=600)
                if proc.returncode == 0:
                    break
                named = re.search(r"/m(\d+)\.ll\b", proc.stderr.decode(errors="replace"))
                if named is None:  # not a module's fault: one opt each
                    verdicts[start:] = [self._verify_message(ir) for ir in irs[start:]]
                    break
                culprit = int(named.group(1))
                verdicts[culprit] = self._verify_message(irs[culprit])
                start = culprit + 1
        return verdicts

    def _verify_message(self, ir):
        try:
            self.verify(ir)
        except LlvmError as e:
            return str(e)
        return None

    def _llvmlite_verify_many(self, irs):
        argv = [self.tools["python"], _LLVMLITE_DRIVER, "verify_many"]
        proc = subprocess.run(argv, input=json.dumps(irs).encode(), capture_output=True, timeout=600)
        if proc.returncode == 0:
            return json.loads(proc.stdout)
        # LLVM 20 ended the process (it aborts on some inputs): one module per process.
        return [self._verify_message(ir) for ir in irs]

    def compile(self, ir, cpu, triple=None):
        """Optimise (-O2) and compile `ir` for `cpu`, which always reaches the target machine.

        The middle end runs first, as in every real compiler: LLVM 20's
        codegen alone cannot select the control-flow intrinsics it inserts
        for divergent branches.
        """
        if self.kind == "llvmlite":
            out, err = self._llvmlite("compile", ir, cpu=cpu, triple=triple)
            return Compiled(cpu, base64.b64decode(out["obj"]), out["asm"], err)
        target = [f"-mcpu={cpu}"] + ([f"-mtriple={triple}"] if triple else [])
        bitcode, opt_err = _run([self._bin("opt"), "-O2", *target, "-o", "-", "-"], ir.encode(), what=f"opt -O2 -mcpu={cpu}")
        argv = [self._bin("llc"), "-O2", *target]
        asm, err = _run(argv + ["-filetype=asm", "-o", "-", "-"], bitcode, what=f"llc -mcpu={cpu}")
        obj, _ = _run(argv + ["-filetype=obj", "-o", "-", "-"], bitcode, what=f"llc -mcpu={cpu}")
        return Compiled(cpu, obj, asm.decode(), opt_err + err)

    def link(self, obj):
        """Link an object into a code object (.hsaco); undefined symbols fail."""
        with tempfile.TemporaryDirectory() as tmp:
            src, out = os.path.join(tmp, "k.o"), os.path.join(tmp, "k.hsaco")
            with open(src, "wb") as f:
                f.write(obj)
            _run([self.lld, "-shared", "--no-undefined", src, "-o", out], what="ld.lld --no-undefined")
            with open(out, "rb") as f:
                return f.read()

    @property
    def objdump_is_borrowed(self):
        """True when this flavor has no llvm-objdump of its own (llvmlite)."""
        return self.kind == "llvmlite"

    def disassemble(self, code_object, cpu):
        """`llvm-objdump -d` text of a linked code object, for `cpu`."""
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "k.hsaco")
            with open(path, "wb") as f:
                f.write(code_object)
            out, _ = _run([self.objdump, "-d", f"--mcpu={cpu}", path], what=f"llvm-objdump --mcpu={cpu}")
        return out.decode()

    def default_datalayout(self, triple, cpu):
        """The datalayout this LLVM's target machine uses for `triple`."""
        if self.kind == "llvmlite":
            return self._llvmlite("datalayout", cpu=cpu, triple=triple)[0]["datalayout"]
        out, _ = _run([self._bin("opt"), "-S", f"-mtriple={triple}", f"-mcpu={cpu}", "-"], b"")
        return re.search(r'target datalayout = "([^"]*)"', out.decode()).group(1)


def _runfile(path):
    """Resolve a runfiles-relative path (as $(rootpath) gives) from a test or binary."""
    if os.path.isabs(path) or os.path.exists(path):
        return path
    for root in (os.environ.get("RUNFILES_DIR"), os.environ.get("TEST_SRCDIR")):
        if root:
            for candidate in (os.path.join(root, path), os.path.join(root, "_main", path)):
                if os.path.exists(candidate):
                    return candidate
    raise LlvmError(f"cannot find {path} in the runfiles")
