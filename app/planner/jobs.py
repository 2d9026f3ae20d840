"""The planner's face to the rocke command line and the catalog actions:
parse and read a problems file, plan a job per (problem, arch), lower a
job's kernels, and compile each into a catalog row.

Lowering (build and lower a kernel for the flavor) takes the C++ engine
by default (engine="cpp": every family has a C++ mirror, and the
byte-identity gates prove it makes the Python engine's bytes, about 20x
faster); engine="python" takes the Python builders. A family the C++ engine
does not register falls back to Python. The family registry (module ->
Family, as the generated rocke_families.FAMILIES) is the caller's: the rocke
program passes the whole registry, a test the families it plans for.
"""

import dataclasses
import time

import rocke_library_engine
from arch import arch as arch_table
from catalog import index, kernel
from family.engines import lower_family
from family.family import Case
from planner.choose import choose
from planner.problems import EntryError, FileError, parse, read

__all__ = (
    "ENGINES",
    "EntryError",
    "FileError",
    "Job",
    "Lowered",
    "ROWS",
    "build",
    "compile_row",
    "lower",
    "merged",
    "parse",
    "plan",
    "read",
)

ENGINES = ("cpp", "python")  # the first is the default

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
        """The Job of `problem` on `arch`; EntryError when no family builds it,
        arch.UnknownArchError (naming the arch table's archs) for an arch
        the table does not have."""
        arch_table.get(arch)
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
    entry refused alike on every arch is one error without an arch.
    An arch the arch table does not have stops the plan before any job:
    arch.UnknownArchError names the ones it has."""
    for arch in archs:
        arch_table.get(arch)
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


@dataclasses.dataclass(frozen=True)
class Lowered:
    """One of a job's kernels (Job.kernels), lowered for a flavor."""

    choice: object  # choose.Choice: the family and config that built it
    path: str  # its code object's path inside the catalog
    name: str  # the kernel's symbol
    ll: str  # its LLVM IR
    identity: str  # catalog.kernel.identity: equal for kernels one code object serves
    engine: str  # the engine that lowered it
    # Seconds its building and lowering took: a measurement, so left out of
    # comparisons (and of every deterministic output).
    seconds: float = dataclasses.field(default=0.0, compare=False)


# The families the C++ engine registers.
CPP_FAMILIES = frozenset(rocke_library_engine.families())


class RegistryError(ValueError):
    """The planner chose a family the caller's registry does not hold; the message names both."""


def lower(job, flavor, families, engine=ENGINES[0]):
    """[Lowered] of a job's kernels for `flavor`, in the order they run, by
    `engine` (see the module doc), each built by its family in `families`
    (module -> Family); RegistryError if one is not there;
    lower.flavors.ArchDomainError, naming the kernel, if the flavor cannot
    express it for the arch (no LLVM runs)."""
    if engine not in ENGINES:
        raise ValueError(f"expected engine to be one of {', '.join(ENGINES)}, got {engine!r}")
    out = []
    for choice, case_id, path in job.kernels():
        if choice.module not in families:
            raise RegistryError(
                f"expected {choice.module} (family {choice.family}) in the family registry, got only "
                f"{', '.join(sorted(families)) or 'none'}; pass a registry that holds every family the job needs"
            )
        fam = families[choice.module]
        used = "python" if engine == "cpp" and fam.name not in CPP_FAMILIES else engine
        start = time.monotonic()
        case = Case(case_id, job.arch, choice.spec)
        emitted = lower_family(fam, case, flavor, engine=used, cpp=rocke_library_engine)
        identity = kernel.identity(emitted.name, emitted.ll)
        out.append(Lowered(choice, path, emitted.name, emitted.ll, identity, used, time.monotonic() - start))
    return out


def compile_row(job, lowered, toolchain, built=None, served_by=None):
    """(row, Built) of one Lowered kernel of a job: the toolchain compiles and
    links it (catalog.kernel.KernelError if LLVM refuses). A kernel another
    kernel's code object serves passes that one's Built and Lowered as
    `built` and `served_by`: nothing is compiled, and its row names that
    code object's path and symbol."""
    if built is None:
        built = kernel.build(lowered.ll, job.arch, lowered.name, toolchain)
    by = served_by or lowered
    p, c = job.problem, lowered.choice
    row = index.row(
        p.index, p.name, p.op, job.arch, toolchain.flavor, c.family, c.config, by.name, by.path, built, c.spec.to_json()
    )
    return row, built


def build(job, toolchain, families, engine=ENGINES[0]):
    """[(row, code object)] of a job, one per kernel (Job.kernels), lowered
    by `engine` from `families` (as lower), compiled and linked."""
    out = []
    for lowered in lower(job, toolchain.flavor, families, engine):
        row, built = compile_row(job, lowered, toolchain)
        out.append((row, built.code_object))
    return out
