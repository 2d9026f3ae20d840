"""LLVM 22-24 in this process, through the C API of the root's libLLVM.so.NN.

One compile is one parse (which also verifies), one -O2 pipeline
("default<O2>", as `opt -O2` runs) and one codegen to an object in memory: the
same bytes as `opt -O2 | llc -O2 -filetype=obj` (toolchains/llvm/inproc_test.py
compares them), without starting three processes per kernel.

Only the AMDGPU target is initialised. A target machine is made per
(triple, cpu) and kept: it holds no module state. What LLVM reports through
the context's diagnostic handler (warnings, remarks) is returned as text, as
llc's stderr was.
"""

import ctypes
import time

from toolchains.llvm import waits
from toolchains.llvm.errors import LlvmError

_VOID = ctypes.c_void_p
_STR = ctypes.c_char_p
_DIAGNOSTIC_HANDLER = ctypes.CFUNCTYPE(None, _VOID, _VOID)
_ERROR, _WARNING = 0, 1  # LLVMDiagnosticSeverity (2 remark, 3 note)
_SEVERITY = {_ERROR: "error", _WARNING: "warning"}
_RETURN_STATUS = 2  # LLVMReturnStatusAction: report, do not abort
_OPT_DEFAULT, _RELOC_PIC, _CODE_MODEL_DEFAULT, _OBJECT_FILE = 2, 2, 0, 1

# name -> (result type, argument types) of every C API function used.
_SIGNATURES = {
    "LLVMInitializeAMDGPUTargetInfo": (None, ()),
    "LLVMInitializeAMDGPUTarget": (None, ()),
    "LLVMInitializeAMDGPUTargetMC": (None, ()),
    "LLVMInitializeAMDGPUAsmPrinter": (None, ()),
    "LLVMContextCreate": (_VOID, ()),
    "LLVMContextDispose": (None, (_VOID,)),
    "LLVMContextSetDiagnosticHandler": (None, (_VOID, _DIAGNOSTIC_HANDLER, _VOID)),
    "LLVMGetDiagInfoDescription": (_VOID, (_VOID,)),
    "LLVMGetDiagInfoSeverity": (ctypes.c_int, (_VOID,)),
    "LLVMCreateMemoryBufferWithMemoryRangeCopy": (_VOID, (_STR, ctypes.c_size_t, _STR)),
    "LLVMParseIRInContext": (ctypes.c_int, (_VOID, _VOID, ctypes.POINTER(_VOID), ctypes.POINTER(_VOID))),
    "LLVMVerifyModule": (ctypes.c_int, (_VOID, ctypes.c_int, ctypes.POINTER(_VOID))),
    "LLVMDisposeModule": (None, (_VOID,)),
    "LLVMGetTarget": (_STR, (_VOID,)),
    "LLVMSetTarget": (None, (_VOID, _STR)),
    "LLVMGetTargetFromTriple": (ctypes.c_int, (_STR, ctypes.POINTER(_VOID), ctypes.POINTER(_VOID))),
    "LLVMCreateTargetMachine": (_VOID, (_VOID, _STR, _STR, _STR, ctypes.c_int, ctypes.c_int, ctypes.c_int)),
    "LLVMCreatePassBuilderOptions": (_VOID, ()),
    "LLVMDisposePassBuilderOptions": (None, (_VOID,)),
    "LLVMRunPasses": (_VOID, (_VOID, _STR, _VOID, _VOID)),
    "LLVMGetErrorMessage": (_VOID, (_VOID,)),
    "LLVMDisposeErrorMessage": (None, (_VOID,)),
    "LLVMTargetMachineEmitToMemoryBuffer": (
        ctypes.c_int,
        (_VOID, _VOID, ctypes.c_int, ctypes.POINTER(_VOID), ctypes.POINTER(_VOID)),
    ),
    "LLVMGetBufferStart": (_VOID, (_VOID,)),
    "LLVMGetBufferSize": (ctypes.c_size_t, (_VOID,)),
    "LLVMDisposeMemoryBuffer": (None, (_VOID,)),
    "LLVMDisposeMessage": (None, (_VOID,)),
}

_LOADED: dict = {}  # path -> LibLLVM: a library is loaded and initialised once per process


def load(path):
    """The LibLLVM of the shared library at `path`, loaded once per process."""
    with waits.IN_PROCESS:
        if path not in _LOADED:
            _LOADED[path] = LibLLVM(path)
        return _LOADED[path]


class LibLLVM:
    def __init__(self, path):
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            raise LlvmError(
                f"cannot load the LLVM library {path}: {e}; the pinned root ships it (toolchains/sysroot/manifest)"
            ) from None
        self.path = path
        self._fn = {}
        for name, (result, args) in _SIGNATURES.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = result, list(args)
            self._fn[name] = fn
        for name in ("TargetInfo", "Target", "TargetMC", "AsmPrinter"):
            self._fn[f"LLVMInitializeAMDGPU{name}"]()
        self._machines = {}  # (triple, cpu) -> target machine
        # One compile at a time: the handler below and the machines are shared
        # (and lld, in lld_link.py, shares the library). Threads queue here;
        # waits.Lock counts each one's wait.
        self._lock = waits.IN_PROCESS

    def _message(self, pointer, dispose="LLVMDisposeMessage"):
        text = ctypes.string_at(pointer).decode(errors="replace")
        self._fn[dispose](pointer)
        return text

    def _machine(self, triple, cpu):
        key = (triple, cpu)
        if key not in self._machines:
            target, error = _VOID(), _VOID()
            if self._fn["LLVMGetTargetFromTriple"](triple.encode(), ctypes.byref(target), ctypes.byref(error)):
                raise LlvmError(f"target triple {triple!r}: {self._message(error)}")
            machine = self._fn["LLVMCreateTargetMachine"](
                target, triple.encode(), cpu.encode(), b"", _OPT_DEFAULT, _RELOC_PIC, _CODE_MODEL_DEFAULT
            )
            if not machine:
                raise LlvmError(f"LLVM made no target machine for {triple} {cpu}")
            self._machines[key] = machine
        return self._machines[key]

    def compile(self, ir, cpu, triple=None, what="compile"):
        """(object bytes, diagnostics text, {stage: CPU seconds}) of IR text
        `ir` for `cpu`: parse (and verify), -O2, codegen. LlvmError names the
        stage and carries LLVM's words."""
        with self._lock:
            return self._compile(ir, cpu, triple, what)

    def verify(self, ir, what="LLVM"):
        """Parse and verify `ir`; LlvmError with LLVM's message otherwise."""
        with self._lock:
            context, module, notes = self._parse(ir, what)
            self._fn["LLVMDisposeModule"](module)
            self._fn["LLVMContextDispose"](context)

    def _parse(self, ir, what):
        """(context, module, diagnostics list) of verified IR text; frees all on failure."""
        fn = self._fn
        context = fn["LLVMContextCreate"]()
        notes = []

        def on_diagnostic(info, _):
            # Errors and warnings, as llc prints; remarks ("N instructions
            # in function") only when asked for, which rocke never does.
            severity = fn["LLVMGetDiagInfoSeverity"](info)
            text = self._message(fn["LLVMGetDiagInfoDescription"](info))
            if severity in (_ERROR, _WARNING):
                notes.append(f"{_SEVERITY[severity]}: {text}")

        handler = _DIAGNOSTIC_HANDLER(on_diagnostic)
        fn["LLVMContextSetDiagnosticHandler"](context, handler, None)
        data = ir.encode()
        buffer = fn["LLVMCreateMemoryBufferWithMemoryRangeCopy"](data, len(data), b"<rocke>")
        module, error = _VOID(), _VOID()
        # The parser takes the buffer, and frees it, whatever the outcome.
        if fn["LLVMParseIRInContext"](context, buffer, ctypes.byref(module), ctypes.byref(error)):
            message = self._message(error) if error.value else "\n".join(notes)
            fn["LLVMContextDispose"](context)
            raise LlvmError(f"{what} parse failed: {message.strip()}")
        if fn["LLVMVerifyModule"](module, _RETURN_STATUS, ctypes.byref(error)):
            message = self._message(error)
            fn["LLVMDisposeModule"](module)
            fn["LLVMContextDispose"](context)
            raise LlvmError(f"{what} verify failed: {message.strip()}")
        if error.value:
            fn["LLVMDisposeMessage"](error)
        self._handler = handler  # the context holds a pointer to it until disposed
        return context, module, notes

    def _compile(self, ir, cpu, triple, what):
        fn = self._fn
        start = time.thread_time()  # LLVM runs in this thread only
        context, module, notes = self._parse(ir, what)
        try:
            if triple:
                fn["LLVMSetTarget"](module, triple.encode())
            module_triple = (fn["LLVMGetTarget"](module) or b"").decode()
            if not module_triple:
                raise LlvmError(f"{what}: the module names no target triple and none was given")
            machine = self._machine(module_triple, cpu)
            parsed = time.thread_time()
            options = fn["LLVMCreatePassBuilderOptions"]()
            try:
                failure = fn["LLVMRunPasses"](module, b"default<O2>", machine, options)
            finally:
                fn["LLVMDisposePassBuilderOptions"](options)
            if failure:
                raise LlvmError(
                    f"{what} -O2 for {cpu}: {self._message(fn['LLVMGetErrorMessage'](failure), 'LLVMDisposeErrorMessage')}"
                )
            optimised = time.thread_time()
            error, out = _VOID(), _VOID()
            if fn["LLVMTargetMachineEmitToMemoryBuffer"](
                machine, module, _OBJECT_FILE, ctypes.byref(error), ctypes.byref(out)
            ):
                raise LlvmError(f"{what} codegen for {cpu}: {self._message(error) if error.value else ''}")
            try:
                obj = ctypes.string_at(fn["LLVMGetBufferStart"](out), fn["LLVMGetBufferSize"](out))
            finally:
                fn["LLVMDisposeMemoryBuffer"](out)
            stages = {"parse": parsed - start, "o2": optimised - parsed, "codegen": time.thread_time() - optimised}
            errors = [n for n in notes if n.startswith("error:")]
            if errors:
                raise LlvmError(f"{what} for {cpu}: " + "\n".join(errors))
            return obj, "\n".join(notes), stages
        finally:
            fn["LLVMDisposeModule"](module)
            fn["LLVMContextDispose"](context)
