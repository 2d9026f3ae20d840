"""The planner's face to the rocke command line and the catalog actions
(the registry names this module as PLANNER): read a problems file, plan a
job per (problem, arch), lower a job's kernel, and compile it into a catalog row.

Lowering (build and lower the kernel for the flavor) takes the C++ engine
by default (engine="cpp": every family has a C++ mirror, and the
byte-identity gates prove it makes the Python engine's bytes, about 20x
faster); engine="python" takes the Python builders. A family the C++ engine
does not register, or a program built without the engine module
(//library/engine), falls back to Python.
"""

import dataclasses
import importlib

from catalog import index, kernel
from family import family as families
from family.engines import CPP_MODULE, lower_family
from family.family import Case
from lower.flavors import ArchDomainError
from planner.choose import choose
from planner.problems import EntryError, FileError, read

__all__ = ("ENGINES", "EntryError", "FileError", "Job", "Lowered", "build", "compile_row", "lower", "plan", "read")

ENGINES = ("cpp", "python")  # the first is the default


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
        if len(refused) == len(archs) and len({(e.field, e.message) for e in refused}) == 1:
            refused[0].arch = None
            refused = refused[:1]
        errors += refused
    return jobs, errors


@dataclasses.dataclass(frozen=True)
class Lowered:
    """A job's kernel lowered for a flavor."""

    name: str  # the kernel's symbol
    ll: str  # its LLVM IR
    identity: str  # catalog.kernel.identity: equal for jobs one code object serves
    engine: str  # the engine that lowered it


def _cpp_families():
    """The families the C++ engine registers (empty without the module)."""
    try:
        return frozenset(importlib.import_module(CPP_MODULE).families())
    except ImportError:
        return frozenset()


def lower(job, flavor, engine=ENGINES[0]):
    """The Lowered kernel of a job for `flavor`, by `engine` (see the module
    doc); catalog.kernel.KernelError if the flavor cannot target its arch."""
    if engine not in ENGINES:
        raise ValueError(f"expected engine to be one of {', '.join(ENGINES)}, got {engine!r}")
    fam = families.load(job.choice.module)
    if engine == "cpp" and fam.name not in _cpp_families():
        engine = "python"
    case = Case(f"{job.problem.name}_{job.arch}", job.arch, job.choice.spec)
    try:
        out = lower_family(fam, case, flavor, engine=engine)
    except ArchDomainError as e:
        raise kernel.KernelError(f"{case.id} on {job.arch}: {e}") from None
    return Lowered(kernel.kernel_name(out.rk), out.ll, kernel.identity(out.rk, out.ll), engine)


def compile_row(job, lowered, toolchain, built=None, path=None):
    """(row, Built) of a lowered job: the toolchain compiles and links it
    (catalog.kernel.KernelError if LLVM refuses). A job whose kernel another
    job's code object serves passes that one's Built and path (and its
    Lowered, for the symbol): nothing is compiled, and its row names them."""
    if built is None:
        built = kernel.build(lowered.ll, job.arch, lowered.name, toolchain)
    p = job.problem
    row = index.row(p.index, p.name, p.op, job.arch, toolchain.flavor, job.choice.family, job.choice.config, lowered.name, path or job.path, built)
    return row, built


def build(job, toolchain, engine=ENGINES[0]):
    """(row, code object) of one job, lowered by `engine`, compiled and linked."""
    row, built = compile_row(job, lower(job, toolchain.flavor, engine), toolchain)
    return row, built.code_object
