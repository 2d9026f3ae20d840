"""The ISA metrics of one kernel through one real LLVM: the one place that
lowers, verifies, compiles, links and disassembles for them (rocke isa and
the benchmarks both come here).

    analyze.report(kernel, toolchain) -> {"disassembler", "main_loop", "whole_kernel", "lds_banks", "resources"}
    analyze.report(kernel, toolchain, built)   # the kernel's Toolchain.build, when the caller has it

Raises ArchDomainError (the flavor cannot express the kernel), LlvmError (LLVM
refused it) or ObjdumpError (the disassembly is not what objdump.py reads).
"""

from arch import arch
from isa import banks, metrics
from lower.llvm import lower


def build(kernel, tc):
    """Toolchain `tc`'s Built of IR `kernel` (compiled and linked for its arch)."""
    return tc.build(lower(kernel, tc.flavor), kernel.attrs["arch"], kernel.name)


def report(kernel, tc, built=None):
    """The metrics of IR `kernel` compiled by Toolchain `tc`, JSON-ready."""
    cpu = kernel.attrs["arch"]
    built = built or build(kernel, tc)
    text = tc.disassemble(built.code_object, cpu)
    figures = dict(built.figures)
    figures["waves_per_workgroup"] = figures.pop("waves")
    lds = arch.lds_banks(cpu)
    borrowed = " (llvmlite has none: LLVM 22's, beside the linker llvm20 borrows)" if tc.objdump_is_borrowed else ""
    return {
        "disassembler": tc.objdump + borrowed,
        "main_loop": metrics.main_loop(text, kernel.name, cpu),
        "whole_kernel": metrics.whole_kernel(text, kernel.name),
        "lds_banks": banks.model(kernel, lds.count, lds.bytes),
        "resources": figures,
    }
