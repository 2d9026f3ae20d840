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

__all__ = ("EntryError", "FileError", "Job", "ROWS", "build", "plan", "read")

# A catalog action's folder (kernel_main, archive_main): this file lists its
# rows, beside the code objects at the rows' paths.
ROWS = "rows.json"


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

    def kernels(self):
        """(choice, case id, code object path) of every kernel the problem
        needs, in the order they run: the chosen one, then its Choice.then
        (a split's reduce: case id and file name take the stage)."""
        name, arch = self.problem.name, self.arch
        first = [(self.choice, f"{name}_{arch}", self.path)]
        return first + [(c, f"{name}_{arch}_{c.stage}", f"{arch}/{name}.{c.stage}.hsaco") for c in self.choice.then]


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
        if len(refused) == len(archs) and len({(e.field, e.message) for e in refused}) == 1:
            refused[0].arch = None
            refused = refused[:1]
        errors += refused
    return jobs, errors


def build(job, toolchain):
    """[(row, code object)] of a job, one per kernel (Job.kernels): its
    families build them, the toolchain compiles and links each
    (catalog.kernel.KernelError if LLVM refuses)."""
    out = []
    p = job.problem
    for choice, case_id, path in job.kernels():
        ir_kernel = families.load(choice.module).build(Case(case_id, job.arch, choice.spec))
        built = kernel.build(ir_kernel, toolchain)
        out.append((index.row(p.index, p.name, p.op, job.arch, toolchain.flavor, choice.family, choice.config, ir_kernel.name, path, built), built.code_object))
    return out
