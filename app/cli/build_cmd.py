"""Builds a kernel catalog: problems in, code objects and a cost table out.

    rocke build --problems catalog/resnet50.json --arch gfx942 --out resnet50
    rocke build --problems catalog/bert_base.json --arch gfx942,gfx950 --flavor llvm22 --out bert
    rocke build --problems catalog/mobilenet_v2.json --arch gfx1201 --out mnv2 --explain

The problems file is {"problems": [...]}; each entry is an op (conv_fwd,
conv_dgrad, conv_wgrad, gemm, attention, pool) and its fields (app/planner/problems.py).
For every (problem, arch) the planner picks a family and its
config (--explain prints why), the family builds and lowers the kernel
(--engine: the C++ engine by default, the Python one on request; the same
bytes) and the flavor's real LLVM compiles and links it. Identical kernels
are built once: kernels whose LLVM IR is the same but for the kernel's name
(same family, spec and arch, such as GEMMs that differ only in m, n and k,
which the kernel takes at run time) share the code object of the first of
them, by problem then arch: their rows name its path, symbol and sha256.
OUT then holds:

  ARCH/NAME.hsaco   one code object per (problem, arch); a problem the
                    planner splits (split-K) also has ARCH/NAME.reduce.hsaco,
                    the kernel that adds the partial sums, with its own row
  index.json        a row per kernel (problem, arch, flavor, family, config,
                    kernel name, code object path and sha256, VGPR, AGPR,
                    SGPR, LDS, scratch, spills, occupancy, waves per
                    workgroup) and the entries that failed; same inputs,
                    same bytes
  index.csv         the rows as CSV
  timings.json      each kernel's build time in seconds, keyed
                    PROBLEM/ARCH/FAMILY: its lowering, then its compile and
                    link, less the time its thread waited for the in-process
                    LLVM that another worker thread held (the kernel's own
                    work; the wait is shown apart); a kernel another's code
                    object serves was only lowered (the table shows `= #P`
                    for it). The one file that differs between two builds:
                    times are measurements

A code object an earlier build into OUT listed and this one does not is
removed, so OUT ends as a build into an empty folder leaves it. A build
holds OUT while it writes (a second one into it is refused) and never
leaves an index naming a code object that is not the one it describes:
the old index files go first, index.json comes last. A build killed while
writing leaves hidden files (.rocke-build-*), which the next build into OUT
removes, with the code objects the killed one wrote and the new one does
not list. A folder inside OUT that is a symlink leading out of it is
refused before anything is built.

and the table, with each kernel's build time, goes to stdout. A bad entry
is one line naming it and its field (problems[3].stride: ...); the others
still build and the exit status is 1. A file that is not a problems file
(not UTF-8, not JSON, a key twice in an object, nested too deep, not
{"problems": [...]}) is one line and exit status 2. Progress goes to
stderr from the start: a step per (problem, arch) lowered ([done/total],
elapsed, time left, the problem and its kernel count), then a step per
kernel built (the distinct ones: the kernel's family and code object, its
time and any wait for the LLVM); on a terminal each stage is one line
rewritten in place, otherwise a line per step.
Kernels build in --jobs worker processes (default: the machine's cores, at
most 8). The last line counts the kernels, the distinct ones built and the
errors, and the waits for the LLVM in all.

--verify [N] then runs every distinct problem's kernels in the emulator on N
output tiles against numpy (app/catalog/verify.py, the same check as `rocke
verify DIR`; a split-K layer's reduce is fed its split kernel's workspace and
its output compared with the whole layer's), a progress step each, in the
same workers;
every row gets the result (index.json, the table's last column) and
index.json the seed (--verify-seed) and N. A row that does not compute the
right numbers is named on stderr after the table, and the exit status is 1;
the catalog is written all the same.
"""

import concurrent.futures
import contextlib
import fcntl
import json
import multiprocessing
import os
import sys
import time

from catalog import index, verify
from catalog.kernel import KernelError
from catalog.progress import Progress
from files.atomic import OutputError, sync_folder, write_atomic
from lower.flavors import FLAVORS
from planner import jobs as planner
from toolchains.llvm import waits

from app.cli.inputs import Refused, default_flavor, load_family, out_path, toolchain_for


# The catalog's index files, index.json first: removed first and written
# last, so that it never names a code object still being written.
INDEX_FILES = ("index.json", "index.csv", "timings.json")
# A build's temporary files (write_atomic), and its list of the code objects
# it may write; a build killed writing leaves them, and the next one into the
# folder removes them (under the folder's lock, as bless does its own).
TEMP_PREFIX = ".rocke-build-tmp-"
PENDING = ".rocke-build-pending.json"

HELP = "build the kernels of a problems file for some archs: code objects and a cost table"


def add_arguments(parser):
    parser.add_argument("--problems", required=True, help='a JSON file {"problems": [...]} (see catalog/*.json)')
    parser.add_argument("--arch", required=True, help="comma-separated target archs, e.g. gfx942,gfx950")
    parser.add_argument(
        "--flavor",
        choices=sorted(FLAVORS),
        help="the LLVM flavor (default: the default toolchain's, see rocke toolchains)",
    )
    parser.add_argument("--out", required=True, help="the catalog folder (created), inside the checkout")
    parser.add_argument("--explain", action="store_true", help="print why each family and config was chosen")
    parser.add_argument("--jobs", type=int, default=min(os.cpu_count() or 1, 8), help="worker processes")
    parser.add_argument(
        "--engine",
        choices=planner.ENGINES,
        default=planner.ENGINES[0],
        help="which engine builds and lowers the kernels: the C++ one (about 20x faster) or the Python one; the same bytes",
    )
    parser.add_argument(
        "--verify",
        nargs="?",
        type=int,
        const=verify.WORKGROUPS,
        metavar="N",
        help=f"run every distinct kernel in the emulator on N output tiles of its problem (default {verify.WORKGROUPS}) "
        "against numpy; a mismatch makes the exit status 1",
    )
    parser.add_argument(
        "--verify-seed",
        type=int,
        default=verify.SEED,
        metavar="SEED",
        help=f"the seed of the verification's inputs and tiles, written to index.json (default {verify.SEED})",
    )


def _fail(message, status=2):
    print(f"rocke build: {message}", file=sys.stderr)
    return status


def _archs(text, flavor):
    """The --arch list, each known to the flavor; Refused names what is allowed."""
    given = [a for a in text.split(",") if a]
    allowed = FLAVORS[flavor].cpus
    for a in given:
        if a not in allowed:
            raise Refused(f"expected --arch to list archs {flavor} knows ({', '.join(allowed)}), got {a!r}")
    if not given or len(set(given)) != len(given):
        raise Refused(f"expected --arch to list distinct archs, e.g. gfx942,gfx950, got {text!r}")
    return given


def _read(path):
    """The bytes of the problems file (the planner parses them)."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise Refused(f"cannot read --problems {path}: {e.strerror}") from None


# Each worker process keeps its toolchain, engine and family registry.
_WORKER: dict = {}


def _init(toolchain, engine, families):
    _WORKER.update(toolchain=toolchain, engine=engine, families=families)


def _guarded(step):
    """(result, failure, seconds, waited) of step(): `waited` the seconds its
    thread waited for the in-process LLVM that another thread held
    (toolchains/llvm/waits.py), `seconds` the rest, its own work. A
    KernelError (LLVM's, its message alone) or any other error (named by
    its class: ArchDomainError where the flavor cannot express the kernel,
    a builder's own) fails this entry, and the others still build."""
    start, waited = time.monotonic(), waits.waited()

    def spent():
        wait = waits.waited() - waited
        return time.monotonic() - start - wait, wait

    try:
        result = step()
    except KernelError as e:
        return None, str(e), *spent()
    except Exception as e:
        return None, f"{type(e).__name__}: {e}", *spent()
    return result, None, *spent()


def _lower(job):
    w = _WORKER
    return (job, *_guarded(lambda: planner.lower(job, w["toolchain"].flavor, w["families"], w["engine"])))


def _compile(item):
    job, lowered, i = item
    w = _WORKER
    return ((job, i), *_guarded(lambda: planner.compile_row(job, lowered, w["toolchain"])))


def _verify(item):
    """(key, results, seconds) of one problem's kernels (catalog.verify.problems):
    catalog.verify.check_problem of its rows."""
    key, rows, code_objects, settings = item
    w = _WORKER

    def check():
        kernels = []
        for row, code_object in zip(rows, code_objects):
            fam = load_family(w["families"], row["family"])
            spec = verify.spec_of(fam, row["spec"])
            kernels.append(
                verify.Kernel(fam, spec, row["arch"], code_object, row["kernel"], w["toolchain"], row["path"])
            )
        return verify.check_problem(kernels, settings, model=True)

    checked, failure, seconds, _ = _guarded(check)
    return key, checked or [{"result": "error", "message": failure} for _ in rows], seconds


def _verify_rows(rows, objects, settings, workers, toolchain, engine, families):
    """Every row's "verify" set: each distinct problem's kernels run once
    (catalog.verify), its rows carrying the results; progress on stderr. The
    number of launches."""
    problems = verify.problems(sorted(rows, key=lambda r: (r["problem"], r["arch"])))
    first = {}
    for key, group in problems:
        first.setdefault(key, group)
    work = [(key, group, [objects[r["path"]] for r in group], settings) for key, group in first.items()]
    results = {}
    progress = Progress(len(work), sys.stderr)
    with _workers(work, workers, toolchain, engine, families) as (_, run_all):
        for key, checked, seconds in run_all(_verify, work):
            results[key] = checked
            group = first[key]
            what = " then ".join(f"{r['family']} {r['path']}" for r in group)
            cells = ", ".join(index.verify_cell(result) for result in checked)
            progress.step(f"verified {what} (problems[{group[0]['problem']}]): {cells} ({seconds:.2f} s)")
    for key, group in problems:
        for r, result in zip(group, results[key]):
            r["verify"] = result
    return sum(len(group) for group in first.values())


def _explain(jobs):
    for job in jobs:
        print(
            f"problems[{job.problem.index}] {job.problem.name} on {job.arch}: {job.choice.family}, {job.choice.config}"
        )
        for reason in job.choice.reasons:
            print(f"    {reason}")
        for then in job.choice.then:  # the kernels run after it (a split's reduce): rows of their own
            print(f"  then {then.stage}: {then.family}, {then.config}")
            for reason in then.reasons:
                print(f"    {reason}")


def _plan(args):
    """(jobs, errors, out folder) of the command line; Refused for anything
    that stops the whole build."""
    arch_list = _archs(args.arch, args.flavor)
    data = _read(os.path.join(os.environ.get("BUILD_WORKING_DIRECTORY", ""), args.problems))
    out = out_path(args.out)
    try:
        problems, errors = planner.read(planner.parse(data))
    except planner.FileError as e:
        raise Refused(f"--problems {args.problems}: {e}") from None
    jobs, refused = planner.plan(problems, arch_list)
    _inside(out, {os.path.dirname(path) for job in jobs for *_, path in job.kernels()})
    return jobs, [*errors, *refused], out


def _key(job):
    return job.problem.index, job.arch


def _distinct(lowered):
    """{(job key, i): (job key, i) of the kernel whose code object serves it}
    over the i-th Lowered kernel of every job: kernels that lower to the same
    IR but for the name (catalog.kernel.identity) are served by the first of
    them, by problem, arch and order in the job. `lowered`: {job key: (job,
    [Lowered])}."""
    first, served_by = {}, {}
    for key in sorted(lowered):
        for i, low in enumerate(lowered[key][1]):
            served_by[(key, i)] = first.setdefault(low.identity, (key, i))
    return served_by


def run(args):
    if args.jobs < 1:
        return _fail(f"expected --jobs to be a positive number, got {args.jobs}")
    settings = None
    if args.verify is not None:
        try:
            settings = verify.settings(args.verify, args.verify_seed)
        except ValueError as e:
            return _fail(f"--verify: {e}")
    try:
        args.flavor = args.flavor or default_flavor()
        jobs, errors, out = _plan(args)
    except (Refused, OutputError) as e:
        return _fail(str(e))
    for error in errors:
        print(f"rocke build: {error}", file=sys.stderr)
    if args.explain:
        _explain(jobs)
    try:
        toolchain = toolchain_for(args.flavor)
    except Refused as e:
        return _fail(str(e))
    rows, seconds, objects = [], {}, {}
    waited = 0.0  # seconds kernels waited for the in-process LLVM, in all
    error_rows = [index.error(e.index, e.arch, str(e)) for e in errors]
    start = time.monotonic()

    def failed(job, failure):
        error_rows.append(index.error(job.problem.index, job.arch, failure))
        print(f"rocke build: {_what(job)}: {failure}", file=sys.stderr)

    with _workers(jobs, args.jobs, toolchain, args.engine, args.families) as (how, results):
        lowered, refused = {}, []
        lowering = Progress(len(jobs), sys.stderr)
        for job, low, failure, spent, _ in results(_lower, jobs):
            if failure:
                refused.append((job, failure))
            else:
                lowered[_key(job)] = (job, low)
            kernels = "FAILED" if failure else f"{len(low)} kernel{'s' * (len(low) != 1)}"
            lowering.step(f"lowered {_what(job)} ({kernels}, {spent:.2f} s)")
        for job, failure in sorted(refused, key=lambda r: _key(r[0])):  # after the progress line, in problem order
            failed(job, failure)
        served_by = _distinct(lowered)
        distinct = sorted(set(served_by.values()))
        progress = Progress(len(distinct), sys.stderr)
        built = {}  # (job key, i) -> Built or the failure's message, for each distinct kernel
        made = {}  # (job key, i) -> its index row, made in the worker, for each distinct kernel built
        compiled = {}  # (job key, i) -> the seconds of its compile and link, in its worker, less any wait
        work = [(lowered[key][0], lowered[key][1][i], i) for key, i in distinct]
        for (job, i), result, failure, spent, wait in results(_compile, work):
            built[(_key(job), i)] = failure or result[1]
            if not failure:
                made[(_key(job), i)] = result[0]
            compiled[(_key(job), i)] = spent
            waited += wait
            low = lowered[_key(job)][1][i]
            progress.step(
                f"{_what(job)}: {low.choice.family} -> {low.path}{' FAILED' if failure else ''} ({spent:.2f} s{_wait(wait)})"
            )
    for key in sorted(lowered):
        job, kernels = lowered[key]
        served = [served_by[(key, i)] for i in range(len(kernels))]
        failing = [s for s in served if isinstance(built[s], str)]
        if failing:
            (index_, arch), _ = failing[0]
            same = "" if (index_, arch) == key else f"the same kernel as problems[{index_}] on {arch}: "
            failed(job, same + built[failing[0]])
            continue
        for i, (low, (by_key, by_i)) in enumerate(zip(kernels, served)):
            if (by_key, by_i) == (key, i):
                row = made[(key, i)]
            else:  # served by another kernel's code object: only its row is made
                row, _ = planner.compile_row(job, low, toolchain, built[(by_key, by_i)], lowered[by_key][1][by_i])
            rows.append(row)
            objects[row["path"]] = built[(by_key, by_i)].code_object
            # Each kernel's own time: its lowering, then its compile and link
            # less its wait for the LLVM (none for a kernel another's code
            # object serves).
            seconds[index.kernel_key(row)] = low.seconds + compiled.get((key, i), 0.0)
    wall = time.monotonic() - start
    try:
        index.check_keys(rows)  # before writing: times are keyed by kernel_key
    except index.DuplicateKernel as e:
        return _fail(str(e))
    checked, bad = "", []
    if settings is not None:
        verify_start = time.monotonic()
        launched = _verify_rows(rows, objects, settings, args.jobs, toolchain, args.engine, args.families)
        bad = [r for r in sorted(rows, key=lambda r: (r["problem"], r["arch"])) if r["verify"]["result"] != "ok"]
        total, unmodelled = index.modelled_total(rows)
        checked = (
            f", {launched} verified in {time.monotonic() - verify_start:.1f} s ({len(bad)} rows wrong); "
            f"modelled time {total:.1f} us in all (a model, platform/emu/model.py"
            + (f"; {unmodelled} rows without a figure" if unmodelled else "")
            + ")"
        )
    try:
        _write(out, objects, rows, error_rows, seconds, settings)
    except OutputError as e:
        return _fail(str(e))
    sys.stdout.write(index.table(rows, seconds))
    rate = f", {len(rows) / wall:.1f} kernels/s" if wall > 0 and rows else ""
    print(
        f"{len(rows)} kernels ({len(objects)} distinct built), {len(error_rows)} errors, {wall:.1f} s in {how}{_wait(waited, ' in all')}{rate}{checked}; wrote {out}"
    )
    for r in bad:  # after the table: the catalog is written, these rows are wrong
        where = f"problems[{r['problem']}] {r['name']} on {r['arch']}, {r['family']} ({r['path']})"
        print(f"rocke build: {where}: {verify.text(r['verify'])}", file=sys.stderr)
    return 1 if error_rows or bad else 0


def _what(job):
    return f"problems[{job.problem.index}] {job.problem.name} on {job.arch}"


def _wait(seconds, what=""):
    """ ", S s waiting for LLVM" where threads queued for the in-process LLVM
    (waits.py), not counted in a kernel's time; nothing where none did."""
    return f", {seconds:.2f} s waiting for LLVM{what}" if seconds >= 0.005 else ""


def _semaphores():
    """Whether the OS gives the POSIX semaphores worker processes need (none
    without /dev/shm, as in Bazel's sandbox)."""
    try:
        multiprocessing.get_context("fork").Lock()
    except OSError:
        return False
    return True


def _pool(workers, initargs):
    """(executor, what it is): worker processes, or threads where the OS gives
    no POSIX semaphores (no /dev/shm, as in Bazel's sandbox); threads compile
    one kernel at a time (the in-process LLVM takes one compile at a time;
    the others wait, and the wait is not their time) and link in parallel."""
    if not _semaphores():
        _init(*initargs)
        return concurrent.futures.ThreadPoolExecutor(
            workers
        ), f"{workers} worker threads (no POSIX semaphores for processes)"
    context = multiprocessing.get_context("fork")
    pool = concurrent.futures.ProcessPoolExecutor(workers, mp_context=context, initializer=_init, initargs=initargs)
    return pool, f"{workers} worker processes"


@contextlib.contextmanager
def _workers(jobs, workers, toolchain, engine, families):
    """(how kernels are built, results(fn, items): an iterator of fn(item)
    per item as they finish), in this process or in a pool kept for every call."""
    initargs = (toolchain, engine, families)
    if workers == 1 or len(jobs) < 2:
        _init(*initargs)
        yield "1 process", lambda fn, items: map(fn, items)
        return
    pool, how = _pool(workers, initargs)
    with pool:

        def results(fn, items):
            for future in concurrent.futures.as_completed([pool.submit(fn, item) for item in items]):
                yield future.result()

        yield how, results


def _makedirs(folder):
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise OutputError(f"cannot create the folder {folder}: {e.strerror}; choose another --out") from None


def _inside(out, folders):
    """OutputError naming the first of `folders` (relative to `out`) that is
    a symlink leading outside `out`: a code object written there would land
    outside the catalog."""
    for folder in sorted(folders):
        path = os.path.join(out, folder)
        real = os.path.realpath(path)
        if real != out and not real.startswith(out + os.sep):
            got = f"it is a symlink to {real}, outside --out {out}"
            raise OutputError(f"cannot write into {path}: {got}; remove the link or choose another --out")


@contextlib.contextmanager
def _locked(out):
    """Hold the folder while writing it, so that every temporary file found
    in it is a leftover. The kernel drops the lock when the block ends or
    the process dies."""
    fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            busy = f"another rocke build is writing {out}"
            raise OutputError(f"{busy}; wait for it to finish, then run this again") from None
        yield
    finally:
        os.close(fd)


def _remove_leftovers(out):
    """The temporary files of a build killed mid-write, in the folder and
    its subfolders (the arch folders); symlinked folders are not entered."""
    for folder in [out] + sorted(e.path for e in os.scandir(out) if e.is_dir(follow_symlinks=False)):
        for name in sorted(os.listdir(folder)):
            if name.startswith(TEMP_PREFIX):
                os.unlink(os.path.join(folder, name))
                sync_folder(folder)
                where = os.path.relpath(os.path.join(folder, name), out)
                print(f"rocke build: removed {where}, left by an interrupted build", file=sys.stderr)


def _named(path, paths):
    """paths(the JSON document at `path`), or none if it is missing or not what a build wrote."""
    try:
        with open(path, "rb") as f:
            return paths(json.load(f))
    except OSError, ValueError, KeyError, TypeError, AttributeError:
        return set()


def _previous(out):
    """The code objects earlier builds into the folder wrote: those its
    index.json names, and those a build that died writing had listed (PENDING)."""

    def indexed(doc):
        return {r["path"] for r in doc["kernels"]} if doc.get("format") == index.FORMAT else set()

    def pending(doc):
        return set(map(str, doc))

    return _named(os.path.join(out, "index.json"), indexed) | _named(os.path.join(out, PENDING), pending)


def _write(out, objects, rows, errors, seconds, settings=None):
    """Every file of the catalog, each atomically, under the folder's lock,
    so that the index never names a code object that is not the one it
    describes, even if the build dies writing: the old index files go
    first, the code objects follow, index.json comes last. PENDING lists
    every code object this build or an earlier one may have written until
    the build is done, so the next build can remove what a dead one left.
    Then the code objects earlier builds wrote and this one does not list are
    removed, so the folder is what a build into an empty one makes."""
    _makedirs(out)
    try:
        _write_locked(out, objects, rows, errors, seconds, settings)
    except OSError as e:  # write_atomic's own are OutputErrors already: the lock, a removal, a listing
        fix = "check the folder and the disk, then try again"
        raise OutputError(f"cannot write {e.filename or out}: {e.strerror}; {fix}") from None


def _write_locked(out, objects, rows, errors, seconds, settings):
    """_write's steps, under the folder's lock."""
    with _locked(out):
        previous = _previous(out)
        _remove_leftovers(out)
        pending = json.dumps(sorted(previous | set(objects)), indent=1) + "\n"
        write_atomic(os.path.join(out, PENDING), pending.encode(), prefix=TEMP_PREFIX)
        for name in INDEX_FILES:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(out, name))
        sync_folder(out)
        for path, data in sorted(objects.items()):
            _makedirs(os.path.dirname(os.path.join(out, path)))
            write_atomic(os.path.join(out, path), data, prefix=TEMP_PREFIX)
        files = {
            "index.json": index.index_json(rows, errors, settings),
            "index.csv": index.index_csv(rows),
            "timings.json": index.timings_json(seconds),
        }
        for name in reversed(INDEX_FILES):
            write_atomic(os.path.join(out, name), files[name], prefix=TEMP_PREFIX)
        for path in sorted(previous - set(objects)):
            # Only what a build of ours wrote, inside the folder: never a stranger's file.
            target = os.path.realpath(os.path.join(out, path))
            if path.endswith(".hsaco") and target.startswith(os.path.realpath(out) + os.sep):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(target)
        os.unlink(os.path.join(out, PENDING))
        sync_folder(out)
