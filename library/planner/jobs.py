"""The planner's face to the rocke command line and the catalog actions
(the registry names this module as PLANNER): read a problems file, plan a
job per (problem, arch), and build a job's kernel into a catalog row.
"""

import dataclasses

from catalog import index, kernel
from family import family as families
from family.family import Case
from planner.choose import choose
from planner.problems import EntryError, FileError, read

__all__ = ("EntryError", "FileError", "Job", "build", "merged", "plan", "read")


@dataclasses.dataclass(frozen=True)
class Job:
    problem: object  # problems.Problem
    arch: str
    choice: object  # choose.Choice

    @classmethod
    def of(cls, problem, arch):
        """The Job of `problem` on `arch`; EntryError when no family builds it."""
        return cls(problem, arch, choose(problem, arch))

    @property
    def path(self):
        """The code object's path inside the catalog."""
        return f"{self.arch}/{self.problem.name}.hsaco"


def plan(problems, archs):
    """(jobs, errors): a Job per (problem, arch) a family can build, in
    problem then arch order, and an EntryError for each that none can. An
    entry refused alike on every arch is one error without an arch."""
    jobs, errors = [], []
    for problem in problems:
        refused = []
        for arch in archs:
            try:
                jobs.append(Job.of(problem, arch))
            except EntryError as e:
                refused.append(e)
        errors += merged(refused, archs)
    return jobs, errors


def merged(refused, archs):
    """The errors of one problem from its refusals (EntryError, one per arch
    refused): one error without an arch when every arch of `archs` refused it
    alike, else each as it is. Used by plan and by the Bazel catalog's
    archive, so both list a problem's refusals the same way."""
    if len(refused) == len(archs) and len({(e.field, e.message) for e in refused}) == 1:
        return [EntryError(refused[0].index, refused[0].field, refused[0].message)]
    return list(refused)


def build(job, toolchain):
    """(row, code object) of a job: its family builds the kernel, the
    toolchain compiles and links it (catalog.kernel.KernelError if LLVM refuses)."""
    case = Case(f"{job.problem.name}_{job.arch}", job.arch, job.choice.spec)
    ir_kernel = families.load(job.choice.module).build(case)
    built = kernel.build(ir_kernel, toolchain)
    p = job.problem
    row = index.row(p.index, p.name, p.op, job.arch, toolchain.flavor, job.choice.family, job.choice.config, ir_kernel.name, job.path, built)
    return row, built.code_object
