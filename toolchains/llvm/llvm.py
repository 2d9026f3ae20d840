"""One interface to every LLVM flavor: verify, compile, link, resource figures.

A Toolchain is built from the toolchain.json that the @llvmNN repository
wrote (extensions.bzl, setup.py). Rules and tests reach the toolchain of the
current --//toolchains/llvm:version through the ROCKE_LLVM environment variable,
which names that file in the runfiles (see defs.bzl).

Compiling (parse and verify, -O2, codegen to an object in memory) runs
- for LLVM 22-24, in this process, through the C API of the root's
  libLLVM.so.NN (capi.py; toolchain.json names the library), for the CPUs the
  flavor facts list. Other CPUs take the subprocess path,
  `opt -O2 | llc -filetype=obj` (LLVM aborts its process on a CPU it does
  not know);
- for LLVM 20, in a worker process running llvmlite_driver.py in the llvm20
  environment (LLVM 20 aborts its process on some inputs), kept for the next
  kernel; a worker LLVM ended is that kernel's error, and the next kernel
  gets a fresh one, as does a worker grown past _WORKER_RSS_LIMIT.
Linking runs lld in this process (lld_link.py); ld.lld runs as a process
once lld says this process may not link again,
and for the words of a failed link. The resource figures come from the object's
AMDGPU metadata note (codeobject.py); occupancy from the arch table
(platform/arch/occupancy.py).
"""

import base64
import dataclasses
import functools
import json
import os
import re
import subprocess
import tempfile

from arch import flavor_facts, occupancy
from arch import arch as archs
from toolchains.llvm import capi, codeobject, lld_link, waits
from toolchains.llvm.errors import LlvmError

_HERE = os.path.dirname(os.path.abspath(__file__))
_LLVMLITE_DRIVER = os.path.join(_HERE, "llvmlite_driver.py")
_LINK_BATCH = 256  # modules per llvm-link run in verify_many
_LINK_ARGS = ("-shared", "--no-undefined")  # object -> code object, in process or as ld.lld
# llvmlite's -O2 run keeps memory per kernel that it never frees (measured:
# parse and codegen alone keep none, a context per kernel does not help,
# LLVM 22's C API keeps none; docs/figures/llvm-time.md), so a worker past
# this resident size (peak) is replaced before its next request.
_WORKER_RSS_LIMIT = 1 << 30

__all__ = ["Compiled", "LlvmError", "Toolchain", "resources"]


@dataclasses.dataclass(frozen=True)
class Compiled:
    flavor: str
    cpu: str
    obj: bytes
    warnings: str  # what LLVM reported besides the object (warnings, errors it survived)
    # CPU seconds of each LLVM stage, "parse" (and verify), "o2" and "codegen",
    # where one LLVM ran them all (in process or LLVM 20's worker); empty
    # for the subprocess path. For benchmarks: never part of the output.
    stages: dict = dataclasses.field(default_factory=dict, compare=False)

    @functools.cached_property
    def metadata(self):
        """The object's AMDGPU metadata map (amdhsa.target, amdhsa.kernels, ...)."""
        return codeobject.metadata(self.obj)

    @property
    def target(self):
        """The target the object is for, e.g. amdgcn-amd-amdhsa--gfx942."""
        return self.metadata["amdhsa.target"]

    @property
    def code_object_version(self):
        """The code object version (4, 5, 6), from the ELF header's ABI version."""
        return codeobject.code_object_version(self.obj)

    @property
    def has_indirect_call(self):
        # An intrinsic name this LLVM does not know compiles to a call through
        # a pointer to a symbol of that name, which the object leaves undefined.
        return bool(codeobject.undefined_symbols(self.obj))

    @property
    def resources(self):
        return resources(self)


@dataclasses.dataclass(frozen=True)
class Built:
    """A kernel compiled, checked and linked: Toolchain.build's result."""

    compiled: Compiled
    code_object: bytes  # the linked code object (.hsaco)
    figures: dict  # resources(compiled), plus "waves": workgroup size over wave size


class IndirectCallError(LlvmError):
    """The LLVM compiled an intrinsic it does not know into an indirect call."""


# Resource figure -> the field of the metadata's kernel entry.
_RESOURCES = {
    "vgpr": ".vgpr_count",  # VGPRs and AGPRs together, as occupancy counts them
    "agpr": ".agpr_count",
    "sgpr": ".sgpr_count",
    "lds": ".group_segment_fixed_size",
    "scratch": ".private_segment_fixed_size",
    "vgpr_spill": ".vgpr_spill_count",
    "sgpr_spill": ".sgpr_spill_count",
    "wave_size": ".wavefront_size",
    # The lowering states the kernel's size as amdgpu-flat-work-group-size="1,N".
    "workgroup_size": ".max_flat_workgroup_size",
}


def resources(compiled):
    """Resource figures of the first kernel of Compiled `compiled`; None where
    not reported. Occupancy (waves per SIMD) is computed from the arch table,
    None for a CPU the table does not know."""
    (kernel, *_) = compiled.metadata["amdhsa.kernels"]
    figures = {name: kernel.get(field) for name, field in _RESOURCES.items()}
    figures["occupancy"] = None
    if (
        compiled.cpu in archs.ARCHS
        and compiled.flavor in archs.get(compiled.cpu).flavors
        and None
        not in (figures["vgpr"], figures["sgpr"], figures["lds"], figures["wave_size"], figures["workgroup_size"])
    ):
        figures["occupancy"] = occupancy.waves_per_simd(
            compiled.cpu,
            compiled.flavor,
            figures["wave_size"],
            figures["vgpr"],
            figures["sgpr"],
            figures["lds"],
            figures["workgroup_size"],
        )
    return figures


def _run(argv, stdin=None, what=""):
    proc = subprocess.run(argv, input=stdin, capture_output=True, timeout=600)
    stderr = proc.stderr.decode(errors="replace")
    if proc.returncode != 0:
        reason = f"killed by signal {-proc.returncode}" if proc.returncode < 0 else f"exit {proc.returncode}"
        raise LlvmError(f"{what or os.path.basename(argv[0])} failed ({reason}): {stderr.strip()}")
    return proc.stdout, stderr


class _Worker:
    """A llvmlite_driver.py process serving requests one at a time."""

    def __init__(self, python, version):
        self.version = version
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [python, _LLVMLITE_DRIVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr
        )
        self.read_to = 0
        # Its peak resident size in bytes, as its last answer said (it reads
        # its own: /proc shows other PIDs than a sandbox's PID namespace).
        self.maxrss = 0

    def _new_stderr(self):
        self.stderr.seek(self.read_to)
        data = self.stderr.read()
        self.read_to += len(data)
        return data.decode(errors="replace")

    def request(self, op, **fields):
        """(result, stderr text) of one request; LlvmError if LLVM refused or ended the worker."""
        try:
            self.proc.stdin.write((json.dumps(dict(fields, op=op)) + "\n").encode())
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except BrokenPipeError:
            line = b""
        if not line:
            code = self.proc.wait()
            reason = f"killed by signal {-code}" if code < 0 else f"exit {code}"
            raise _WorkerDied(
                f"LLVM {self.version} (llvmlite) {op} ended its worker process ({reason}): {self._new_stderr().strip()}"
            )
        response = json.loads(line)
        self.maxrss = response["maxrss"]
        err = self._new_stderr()
        if "error" in response:
            raise LlvmError(f"LLVM {self.version} (llvmlite) {op} failed: {(err + response['error']).strip()}")
        return response["result"], err

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()
        self.stderr.close()


class _WorkerDied(LlvmError):
    pass


_WORKERS: dict = {}  # python -> _Worker: one per process, reused across Toolchains
_WORKERS_LOCK = waits.Lock()  # one request at a time; counts each thread's wait


class Toolchain:
    def __init__(self, config):
        self.flavor = config["flavor"]
        self.version = config["version"]
        self.source = config["source"]
        self.kind = config["kind"]
        self.default = config["default"]  # the flavor commands use when given none
        self.tools = config["tools"]
        self.lld = self.tools["lld"]
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

    def _library(self, cpu):
        """The in-process LLVM for `cpu`, or None where the subprocess path runs:
        a CPU outside the flavor facts' list (LLVM aborts its process on an
        unknown CPU: "Cannot select")."""
        if "library" not in self.tools or cpu not in flavor_facts.FLAVORS[self.flavor].cpus:
            return None
        return capi.load(self.tools["library"])

    # -- the llvmlite flavor ---------------------------------------------------

    def _llvmlite(self, op, ir="", **fields):
        """(result, stderr) of one request to this process's LLVM 20 worker."""
        python = self.tools["python"]
        with _WORKERS_LOCK:
            worker = _WORKERS.get(python)
            if worker is not None and (worker.proc.poll() is not None or worker.maxrss > _WORKER_RSS_LIMIT):
                worker.close()
                worker = None
            if worker is None:
                worker = _WORKERS[python] = _Worker(python, self.version)
            try:
                return worker.request(op, text=ir, **fields)
            except _WorkerDied:
                worker.close()
                del _WORKERS[python]
                raise

    # -- the interface ---------------------------------------------------------

    def reported_version(self):
        """The version the tool itself reports (not the declared one)."""
        if self.kind == "llvmlite":
            return self._llvmlite("version")[0]["version"]
        out, _ = _run([self._bin("llc"), "--version"])
        return re.search(r"LLVM version (\S+)", out.decode()).group(1)

    def verify(self, ir):
        """Parse and verify `ir`; raise LlvmError with LLVM's message if invalid.
        compile() verifies too: call this only where nothing is compiled."""
        if self.kind == "llvmlite":
            self._llvmlite("verify", ir)
        elif "library" in self.tools:
            capi.load(self.tools["library"]).verify(ir, what=f"LLVM {self.version}")
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
        message. LLVM 20: the worker parses and verifies each module in turn
        (one that ends it is judged by that, and a fresh worker goes on). The others: llvm-link with
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
                argv = [
                    self._bin("llvm-link"),
                    "--disable-debug-info-type-map",
                    "--only-needed",
                    "-o",
                    os.devnull,
                    *paths[start:],
                ]
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
        # One worker serves them all; a module that ends it is judged by that
        # (its message) and the next module gets a fresh worker.
        return [self._verify_message(ir) for ir in irs]

    def compile(self, ir, cpu, triple=None):
        """Parse, verify, optimise (-O2) and compile `ir` for `cpu` to an object.
        `cpu` always reaches the target machine; `triple` replaces the module's.
        LlvmError carries LLVM's words, a verifier failure's included.

        The middle end runs first, as in every real compiler: LLVM 20's
        codegen alone cannot select the control-flow intrinsics it inserts
        for divergent branches.
        """
        if self.kind == "llvmlite":
            out, err = self._llvmlite("compile", ir, cpu=cpu, triple=triple or "")
            return Compiled(self.flavor, cpu, base64.b64decode(out["obj"]), err, out["stages"])
        library = self._library(cpu)
        if library is not None:
            obj, notes, stages = library.compile(ir, cpu, triple, what=f"LLVM {self.version}")
            return Compiled(self.flavor, cpu, obj, notes, stages)
        return self.compile_in_processes(ir, cpu, triple)

    def compile_in_processes(self, ir, cpu, triple=None):
        """compile() as `opt -O2 | llc -O2 -filetype=obj` processes: the path
        of a CPU outside the flavor facts' list, and the reference the
        in-process path is held to (inproc_test.py)."""
        target = [f"-mcpu={cpu}"] + ([f"-mtriple={triple}"] if triple else [])
        bitcode, opt_err = _run(
            [self._bin("opt"), "-O2", *target, "-o", "-", "-"], ir.encode(), what=f"opt -O2 -mcpu={cpu}"
        )
        obj, err = _run(
            [self._bin("llc"), "-O2", *target, "-filetype=obj", "-o", "-", "-"], bitcode, what=f"llc -mcpu={cpu}"
        )
        return Compiled(self.flavor, cpu, obj, opt_err + err)

    def build(self, ir, cpu, name):
        """The one path from IR to a shippable kernel: compile `ir` of the
        kernel `name` for `cpu` (parsing and verifying first), refuse an
        indirect call (an intrinsic this LLVM does not know), link, and read
        the figures. LlvmError (IndirectCallError for the call) says what
        LLVM refused."""
        compiled = self.compile(ir, cpu)
        if compiled.has_indirect_call:
            raise IndirectCallError(
                f"{self.flavor} compiled an intrinsic it does not know into an indirect call in {name}"
            )
        figures = resources(compiled)
        size, wave = figures["workgroup_size"], figures["wave_size"]
        figures["waves"] = -(-size // wave) if size and wave else None
        return Built(compiled, self.link(compiled.obj), figures)

    def link(self, obj):
        """Link an object into a code object (.hsaco); undefined symbols fail."""
        with tempfile.TemporaryDirectory() as tmp:
            src, out = os.path.join(tmp, "k.o"), os.path.join(tmp, "k.hsaco")
            with open(src, "wb") as f:
                f.write(obj)
            args = [*_LINK_ARGS, src, "-o", out]
            # A failed in-process link leaves no words: ld.lld runs it again
            # to say what is wrong (or links, if lld may not run in process).
            if not lld_link.load(self.tools["linker"]).link(args):
                _run([self.lld, *args], what="ld.lld --no-undefined")
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
