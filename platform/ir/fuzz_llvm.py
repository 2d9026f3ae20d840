"""Random kernels through the verifier, the lowering and the real LLVM of a
flavor: fuzz_llvm_test (hypothesis, per flavor) and fuzz_bench (100,000
seeded examples, every flavor) share this tally.

Every example ends in one outcome per flavor:
  rejected  the verifier raised VerifyError (counted by kind, for every flavor alike)
  domain    lower() raised ArchDomainError: the flavor cannot express the kernel
  accepted  the lowered module passed LLVM's verifier
  bug       LLVM rejected a module that verified and lowered: the verifier or
            the lowering is wrong
"""

import collections
import dataclasses
import re

from ir.core import walk
from ir.printer import print_kernel
from lower.flavors import ArchDomainError
from lower.llvm import lower


def error_kind(error):
    """A VerifyError message up to what it got, without the kernel's name,
    arch names, numbers (not the digits of i32) and asides: its kind."""
    what = re.sub(r"^kernel @\w+", "kernel", str(error).split(", got ")[0])
    what = re.sub(r" \(.*?\)", "", re.sub(r"\bgfx\w+", "ARCH", what))
    return re.sub(r"(?<!\w)-?\d+\b", "N", what)


@dataclasses.dataclass
class Tally:
    flavor: str
    examples: int = 0
    rejected: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    domain: int = 0
    domain_by: collections.Counter = dataclasses.field(
        default_factory=collections.Counter
    )  # what each ArchDomainError names: an op, or "kernel"
    accepted: int = 0
    bugs: list = dataclasses.field(default_factory=list)  # (kernel text, LLVM's message)
    accepted_ops: set = dataclasses.field(default_factory=set)
    accepted_types: set = dataclasses.field(default_factory=set)
    pending: list = dataclasses.field(default_factory=list)  # (kernel, IR) awaiting LLVM

    def add(self, case):
        """Counts one kernel_gen.Case; a lowered one waits in `pending` for judge()."""
        self.examples += 1
        if case.kernel is None:
            self.rejected[error_kind(case.error)] += 1
            return
        try:
            self.pending.append((case.kernel, lower(case.kernel, self.flavor)))
        except ArchDomainError as e:
            self.domain += 1
            self.domain_by[str(e).split(":")[0].split(" @")[0]] += 1

    def judge(self, toolchain):
        """LLVM's verdict on every pending module, in one batch."""
        verdicts = toolchain.verify_many([ir for _, ir in self.pending])
        for (kernel, _), verdict in zip(self.pending, verdicts):
            if verdict is not None:
                self.bugs.append((print_kernel(kernel), verdict))
                continue
            self.accepted += 1
            for op in walk(kernel.body):
                self.accepted_ops.add(op.name)
                self.accepted_types |= {str(v.type) for v in (*op.operands, *op.results)}
        self.pending = []

    def report(self):
        """Lines for people: the counts, then each bug's kernel and LLVM's words."""
        lines = [
            f"{self.flavor}: {self.examples} examples: {self.accepted} verified and accepted by LLVM, "
            f"{sum(self.rejected.values())} rejected by the verifier, {self.domain} ArchDomainError, "
            f"{len(self.bugs)} rejected by LLVM (bugs)"
        ]
        for text, message in self.bugs[:3]:
            lines += ["", "LLVM rejected:", text, message]
        return lines
