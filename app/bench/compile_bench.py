"""Spec to code object, per kernel and per flavor, rocke beside Triton 3.9.0
compiling the same kernel variant in the same run: build and lower the
kernel (the C++ engine, as `rocke build` does), compile it with the flavor's
real LLVM, link it and read its resource figures.

    ./bazel run -c opt //app/bench:compile [-- --family gemm|attention --kernels N]

--family gemm (the default): Triton's benchmark tile, the gemm family's
128x128x32 f16 cases (gemm_f16_128x128x32 on gfx942, gfx950 and gfx1201),
written to docs/figures/compile.md:
- cold: one kernel in a fresh Python process, timed from the process start
  (interpreter, imports, loading LLVM) to its code object and figures; and
  the first kernel's own time inside that process; per engine;
- warm: the median per-kernel time in a process that has already built each
  kernel once, over --kernels kernels (the cases in turn), per engine; and,
  for the C++ engine, the median of each stage: lower, compile (LLVM's
  parse, -O2 and codegen), link and figures. Wall times, and the CPU time
  per kernel (this process, the LLVM 20 worker and any ld.lld it ran). And
  the CPU time of each of LLVM's own stages, as the compile reports it (in
  process, or inside LLVM 20's worker): parse (and verify), -O2, codegen.

--family attention: issue 20's variants, attention_fwd (f16, head dim 64
and 128, causal and not) with the planner's tile for gfx942, gfx950 and
gfx1201 (attention.tiles), beside triton_compile.py's flash-attention
forward with issue 20's best Triton launch for that arch and head dim;
warm only, C++ engine, the same figures per variant and flavor, written to
docs/figures/compile-attention.md.

Triton (triton_compile.py, its PyPI wheel as @triton) compiles the same
variant in the same run: cold in a fresh process (gemm), and warm in a child
process that compiles one kernel right after each warm kernel of the C++
engine, for the same variant. Each warm figure of ours is shown as a
fraction of the Triton kernels compiled beside it: on a shared machine both
wall and CPU time move by a third from one minute to the next (the clock
and the caches are shared), and interleaved kernels meet the same
conditions. Prints Markdown tables and writes them to the family's figures
file (figures.py, whose header gives the load average). Nothing here
asserts a speed.
"""

import argparse
import dataclasses
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

START = time.perf_counter()

from arch import arch as archs  # noqa: E402  (imports are part of the cold figure)
from arch import flavor_facts  # noqa: E402
from attention.spec import HEAD_DIMS  # noqa: E402
from attention.tiles import spec_for  # noqa: E402
import rocke_families  # noqa: E402
import rocke_library_engine  # noqa: E402
from family.engines import lower_family  # noqa: E402
from family.family import Case  # noqa: E402
from toolchains.llvm import llvm  # noqa: E402
from toolchains.llvm.llvm import Toolchain, resources  # noqa: E402
from tools.bench import figures  # noqa: E402

CASE_ARCHS = ("gfx942", "gfx950", "gfx1201")
ENGINES = ("cpp", "python")
STAGES = ("lower", "compile", "link")
LLVM_STAGES = ("parse", "o2", "codegen")  # Compiled.stages


@dataclasses.dataclass(frozen=True)
class Kernel:
    """One kernel both compilers build: rocke's case of `family` and the
    request triton_compile.py serves for the same variant."""

    family: object
    case: Case
    triton: dict


def gemm_kernels():
    """Triton's benchmark tile: gemm_f16_128x128x32 on each arch."""
    fam = rocke_families.FAMILIES["gemm.gemm"]
    by_id = {c.id: c for c in fam.cases}
    cases = [by_id[f"gemm_f16_128x128x32_{arch}"] for arch in CASE_ARCHS]
    return [Kernel(fam, c, {"kernel": "gemm", "arch": c.arch}) for c in cases]


# The attention problem: f16, BSHD, no mask, no lse, the default scale, as
# Triton's kernel; the kernels take batch and sequence lengths at run time.
ATTENTION_PROBLEM = {"batch": 1, "heads": 16, "kv_heads": 16, "seq_q": 1024, "seq_k": 1024, "dtype": "f16"}


def attention_kernels():
    """attention_fwd with the planner's tile (attention.tiles) for each arch and
    head dim, causal and not: issue 20's variants."""
    fam = rocke_families.FAMILIES["attention.attention"]
    kernels = []
    for arch in CASE_ARCHS:
        for head_dim in HEAD_DIMS:
            for causal in (False, True):
                spec = spec_for(arch, head_dim=head_dim, causal=causal, **ATTENTION_PROBLEM)
                case = Case(f"f16_d{head_dim}{'_causal' if causal else ''}_{arch}", arch, spec)
                request = {"kernel": "attention", "arch": arch, "head_dim": head_dim, "causal": causal}
                kernels.append(Kernel(fam, case, request))
    return kernels


def cpu_seconds():
    """CPU time of this process, its finished children (an ld.lld) and the live
    LLVM 20 worker (read from /proc: it is never waited for): what the
    kernel costs whatever else the cores run."""
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = time.process_time() + child.ru_utime + child.ru_stime
    for worker in llvm._WORKERS.values():
        with open(f"/proc/{worker.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
    return total


def build(tc, kernel, engine="cpp"):
    """One spec to code object: {stage: wall seconds, "cpu": CPU seconds,
    LLVM stage: CPU seconds}."""
    c0, t0 = cpu_seconds(), time.perf_counter()
    ll = lower_family(kernel.family, kernel.case, tc.flavor, engine=engine, cpp=rocke_library_engine).ll
    t1 = time.perf_counter()
    compiled = tc.compile(ll, kernel.case.arch)
    t2 = time.perf_counter()
    tc.link(compiled.obj)
    resources(compiled)
    t3 = time.perf_counter()
    return {"lower": t1 - t0, "compile": t2 - t1, "link": t3 - t2, "cpu": cpu_seconds() - c0, **compiled.stages}


def wall(run):
    """A kernel's whole wall time, spec to code object and figures."""
    return sum(run[s] for s in STAGES)


def cold(config, engine):
    """Run in a fresh process: the first gemm kernel, timed from the process start."""
    tc = Toolchain.from_file(config)
    first = time.perf_counter()
    build(tc, gemm_kernels()[0], engine)
    end = time.perf_counter()
    print(json.dumps({"first_kernel": end - first, "since_start": end - START}))


def warm(tc, kernels, count, engine, triton=None):
    """[(kernel, our figures, Triton's figures or None)] of `count` kernels,
    `kernels` in turn, each of ours followed by Triton's of the same variant
    when `triton` is given, so that both meet the same load. Every kernel is
    built once first, unmeasured, as Triton's are when it starts."""
    for kernel in kernels:
        build(tc, kernel, engine)
    runs = []
    for i in range(count):
        kernel = kernels[i % len(kernels)]
        ours = build(tc, kernel, engine)
        runs.append((kernel, ours, None if triton is None else triton.compile(kernel.triton)))
    return runs


def medians(runs):
    """{stage, "cpu" or LLVM stage: median} of our figures in `runs`."""
    return {s: statistics.median(r[s] for _, r, _ in runs) for s in (*STAGES, "cpu", *LLVM_STAGES)}


def ratios(runs):
    """Our median wall and CPU per kernel as fractions of Triton's beside them: (wall, CPU)."""
    ours = [r for _, r, _ in runs]
    theirs = [t for _, _, t in runs]
    return (
        statistics.median(wall(r) for r in ours) / statistics.median(t["wall"] for t in theirs),
        statistics.median(r["cpu"] for r in ours) / statistics.median(t["cpu"] for t in theirs),
    )


class Triton:
    """triton_compile.py in a child process, compiling one kernel per request."""

    SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "triton_compile.py")

    def __init__(self, kernels):
        # The child finds triton where this process would (the @triton wheel
        # on the runfiles' path), without this process importing it.
        spec = importlib.util.find_spec("triton")
        if spec is None:
            raise SystemExit(
                "compile_bench: the triton package is not on this process's path; run the bench as ./bazel run -c opt //app/bench:compile (it brings @triton)"
            )
        self.env = dict(
            os.environ,
            PYTHONPATH=os.pathsep.join(
                filter(None, (os.path.dirname(os.path.dirname(spec.origin)), os.environ.get("PYTHONPATH")))
            ),
        )
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            [sys.executable, self.SCRIPT],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            env=self.env,
        )
        self.version = self._answer()["triton"]
        for kernel in kernels:  # warm for every variant, as rocke is by the time it is timed
            self.compile(kernel.triton)

    @staticmethod
    def _waves(arch):
        return archs.get(arch).wave_sizes[0]

    def cold(self):
        """(wall s of a fresh process to its first gemm code object, that kernel's own wall s)."""
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, self.SCRIPT, "--cold", CASE_ARCHS[0], str(self._waves(CASE_ARCHS[0]))],
            capture_output=True,
            text=True,
            env=self.env,
        )
        if proc.returncode != 0:
            raise SystemExit(
                f"compile_bench: Triton's cold compile failed (exit {proc.returncode}):\n{proc.stderr.strip()[-3000:]}"
            )
        return time.perf_counter() - start, json.loads(proc.stdout)["first_kernel"]

    def compile(self, request):
        """{"wall", "cpu", "launch"} of the kernel `request` names (Kernel.triton)."""
        self.proc.stdin.write(json.dumps({**request, "waves": self._waves(request["arch"])}) + "\n")
        self.proc.stdin.flush()
        return self._answer()

    def _answer(self):
        line = self.proc.stdout.readline()
        try:
            return json.loads(line)
        except ValueError:
            self.proc.kill()
            self.stderr.seek(0)
            raise SystemExit(
                f"compile_bench: Triton's compile process answered {line.strip()[:200]!r} (exit {self.proc.wait()}); its stderr:\n{self.stderr.read().strip()[-3000:]}"
            ) from None

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()
        self.stderr.close()


@dataclasses.dataclass(frozen=True)
class Bench:
    """What --family selects: its kernels, the table comparing them, the
    figures file it writes (docs/figures/NAME.md) and its --kernels default."""

    kernels: object
    compare: object
    figure: str
    title: str
    default_kernels: int


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("configs", nargs="+", help="toolchain.json of each flavor")
    parser.add_argument("--family", choices=BENCHES, default="gemm", help="the kernels to compile (default: gemm)")
    parser.add_argument(
        "--kernels",
        type=int,
        help="warm kernels per flavor and engine (and Triton's), the family's variants in turn "
        f"(default: {', '.join(f'{n} {f.default_kernels}' for n, f in BENCHES.items())})",
    )
    parser.add_argument("--cold", choices=ENGINES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cold:
        cold(args.configs[0], args.cold)
        return 0
    bench = BENCHES[args.family]
    if args.kernels is None:
        args.kernels = bench.default_kernels
    if args.kernels < 1:
        parser.error(f"--kernels: expected a positive count, got {args.kernels}")
    toolchains = sorted(
        ((Toolchain.from_file(p), p) for p in args.configs), key=lambda tp: flavor_facts.NAMES.index(tp[0].flavor)
    )
    start = figures.machine()
    kernels = bench.kernels()
    triton = Triton(kernels)
    try:
        lines = bench.compare(args, toolchains, kernels, triton)
    finally:
        triton.close()
    cmd = figures.command("//app/bench:compile", __file__, [("--family", args.family), ("--kernels", args.kernels)])
    body = "\n".join([f"At the start: {start}.", "", *lines])
    return figures.publish(bench.figure, bench.title, cmd, body)


def _row(cells):
    return "| " + " | ".join(cells) + " |"


def _table(columns, rows):
    return [_row(columns), "|---" * len(columns) + "|", *(_row(r) for r in rows)]


def _spread(values):
    """median (min-max) of seconds."""
    return f"{statistics.median(values):.3f} s ({min(values):.3f}-{max(values):.3f})"


# The gemm table's columns, one per figure of a flavor's row.
GEMM_COLUMNS = (
    "flavor",
    "cold, C++ / Python engine: fresh process to code object (first kernel)",
    "warm, C++ engine: per kernel, median (min-max)",
    "of Triton's warm beside it, wall / CPU",
    "of which lower / compile / link",
    "CPU",
    "of which LLVM's parse / -O2 / codegen, CPU",
    "warm, Python engine",
    "CPU",
)


def compare_gemm(args, toolchains, kernels, triton):
    """The table's lines: every flavor, then Triton's kernels compiled beside them."""
    cold_wall, cold_first = triton.cold()
    rows = []
    theirs = []
    for tc, path in toolchains:
        colds = []
        for engine in ENGINES:
            start = time.perf_counter()
            cmd = [sys.executable, __file__, "--cold", engine, path]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
            colds.append(f"{time.perf_counter() - start:.2f} s ({json.loads(proc.stdout)['first_kernel']:.2f})")
        runs = warm(tc, kernels, args.kernels, "cpp", triton)
        python = warm(tc, kernels, args.kernels, "python")
        theirs += runs
        stages, pstages = medians(runs), medians(python)
        wall_ratio, cpu_ratio = ratios(runs)
        rows.append(
            [
                tc.flavor,
                " / ".join(colds),
                _spread([wall(r) for _, r, _ in runs]),
                f"{wall_ratio:.2f}x / {cpu_ratio:.2f}x",
                " / ".join(f"{stages[s]:.3f}" for s in STAGES) + " s",
                f"{stages['cpu']:.3f} s",
                " / ".join(f"{stages[s]:.3f}" for s in LLVM_STAGES) + " s",
                _spread([wall(r) for _, r, _ in python]),
                f"{pstages['cpu']:.3f} s",
            ]
        )
        print(_row(rows[-1]), file=sys.stderr, flush=True)  # progress: a flavor takes a minute or more
    cpu = statistics.median(t["cpu"] for _, _, t in theirs)
    cold_triton = f"{cold_wall:.2f} s ({cold_first:.2f})"
    walls = [t["wall"] for _, _, t in theirs]
    triton_row = [f"Triton {triton.version}, every kernel above", cold_triton, _spread(walls), "1", "", f"{cpu:.3f} s"]
    rows.append(triton_row + [""] * (len(GEMM_COLUMNS) - len(triton_row)))
    per_arch = (  # the archs measured: fewer --kernels than cases leave some out
        f"{arch} {statistics.median(t['wall'] for k, _, t in theirs if k.case.arch == arch):.3f} s"
        for arch in dict.fromkeys(k.case.arch for k, _, _ in theirs)
    )
    return [*_table(GEMM_COLUMNS, rows), "", "Triton's warm wall per arch, median: " + ", ".join(per_arch) + "."]


# The attention summary's columns, one row per flavor over every variant.
ATTENTION_SUMMARY = (
    "flavor",
    "load average (1 min) at its start",
    "warm, C++ engine: per kernel, median (min-max)",
    "Triton's beside it",
    "ours of Triton's, wall / CPU",
    "of which lower / compile / link",
    "CPU",
    "of which LLVM's parse / -O2 / codegen, CPU",
)


def compare_attention(args, toolchains, kernels, triton):
    """A table per variant (ours per flavor, as a fraction of Triton's
    kernels compiled beside them), then one row per flavor over all variants."""
    by_flavor, summary = {}, []
    for tc, _ in toolchains:
        load = f"{os.getloadavg()[0]:.1f}"
        runs = warm(tc, kernels, args.kernels, "cpp", triton)
        by_flavor[tc.flavor] = runs
        stages = medians(runs)
        wall_ratio, cpu_ratio = ratios(runs)
        summary.append(
            [
                tc.flavor,
                load,
                _spread([wall(r) for _, r, _ in runs]),
                _spread([t["wall"] for _, _, t in runs]),
                f"{wall_ratio:.2f}x / {cpu_ratio:.2f}x",
                " / ".join(f"{stages[s]:.3f}" for s in STAGES) + " s",
                f"{stages['cpu']:.3f} s",
                " / ".join(f"{stages[s]:.3f}" for s in LLVM_STAGES) + " s",
            ]
        )
        print(_row(summary[-1]), file=sys.stderr, flush=True)  # progress: a flavor takes minutes
    columns = (
        "arch, head dim",
        "rocke's tile (block_m, block_n, waves)",
        "Triton's launch",
        f"Triton {triton.version}: warm wall, median (CPU)",
        *(f"{f}: ours, median wall (of Triton's beside it, wall / CPU)" for f in by_flavor),
    )
    rows = []
    for kernel in kernels:
        spec = kernel.case.spec
        beside = {f: [run for run in runs if run[0] is kernel] for f, runs in by_flavor.items()}
        theirs = [t for runs in beside.values() for _, _, t in runs]
        triton_cpu = statistics.median(t["cpu"] for t in theirs)
        cells = []
        for runs in beside.values():
            wall_ratio, cpu_ratio = ratios(runs)
            ours = statistics.median(wall(r) for _, r, _ in runs)
            cells.append(f"{ours:.3f} s ({wall_ratio:.2f}x / {cpu_ratio:.2f}x)")
        rows.append(
            [
                f"{kernel.case.arch}, d{spec.head_dim}" + (", causal" if spec.causal else ""),
                f"{spec.block_m}, {spec.block_n}, {spec.waves}",
                theirs[0]["launch"],
                f"{statistics.median(t['wall'] for t in theirs):.3f} s ({triton_cpu:.3f})",
                *cells,
            ]
        )
    return [*_table(columns, rows), "", *_table(ATTENTION_SUMMARY, summary)]


BENCHES = {
    "gemm": Bench(gemm_kernels, compare_gemm, "compile", "Compiling a kernel: spec to code object, beside Triton", 12),
    "attention": Bench(
        attention_kernels,
        compare_attention,
        "compile-attention",
        "Compiling an attention kernel: spec to code object, beside Triton's flash attention",
        36,
    ),
}


if __name__ == "__main__":
    sys.exit(main())
