"""Spec to code object, per kernel and per flavor, on Triton's benchmark tile:
the gemm family's 128x128x32 f16 cases (gemm_f16_128x128x32 on gfx942,
gfx950 and gfx1201): build and lower the kernel (the C++ engine, as `rocke
build` does; the Python engine beside it), compile it with the flavor's
real LLVM, link it and read its resource figures.

    ./bazel run -c opt //app/bench:compile [-- --kernels 12]

- cold: one kernel in a fresh Python process, timed from the process start
  (interpreter, imports, loading LLVM) to its code object and figures; and
  the first kernel's own time inside that process; per engine;
- warm: the median per-kernel time in a process that has already built one,
  over --kernels kernels (the three cases in turn), per engine; and, for the
  C++ engine, the median of each stage: lower, compile (LLVM's parse, -O2
  and codegen), link and figures. Wall times, and the CPU time per kernel
  (this process, the LLVM 20 worker and any ld.lld it ran). And the CPU
  time of each of LLVM's own stages, as the compile reports it (in process,
  or inside LLVM 20's worker): parse (and verify), -O2, codegen.
Triton 3.9.0 (triton_compile.py, its PyPI wheel as @triton) compiles the
same tile in the same run: cold in a fresh process, and warm in a child
process that compiles one kernel right after each warm kernel of the C++
engine, for the same arch. Each flavor's warm time is shown as a fraction
of the Triton kernels compiled beside it: on a shared machine both wall and
CPU time move by a third from one minute to the next (the clock and the
caches are shared), and interleaved kernels meet the same conditions.
Prints a Markdown table and writes it to docs/figures/compile.md
(figures.py, whose header gives the load average). Nothing here asserts a
speed.
"""

import argparse
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
import rocke_families  # noqa: E402
import rocke_library_engine  # noqa: E402
from family.engines import lower_family  # noqa: E402
from toolchains.llvm import llvm  # noqa: E402
from toolchains.llvm.llvm import Toolchain, resources  # noqa: E402
from tools.bench import figures  # noqa: E402

CASE_ARCHS = ("gfx942", "gfx950", "gfx1201")
CASES = tuple(f"gemm_f16_128x128x32_{arch}" for arch in CASE_ARCHS)
ENGINES = ("cpp", "python")
STAGES = ("lower", "compile", "link")
LLVM_STAGES = ("parse", "o2", "codegen")  # Compiled.stages


def _cases():
    by_id = {c.id: c for c in rocke_families.FAMILIES["gemm.gemm"].cases}
    return rocke_families.FAMILIES["gemm.gemm"], [by_id[i] for i in CASES]


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


def build(tc, fam, case, engine="cpp"):
    """One spec to code object: {stage: wall seconds, "cpu": CPU seconds,
    LLVM stage: CPU seconds}."""
    c0, t0 = cpu_seconds(), time.perf_counter()
    ll = lower_family(fam, case, tc.flavor, engine=engine, cpp=rocke_library_engine).ll
    t1 = time.perf_counter()
    compiled = tc.compile(ll, case.arch)
    t2 = time.perf_counter()
    tc.link(compiled.obj)
    resources(compiled)
    t3 = time.perf_counter()
    return {"lower": t1 - t0, "compile": t2 - t1, "link": t3 - t2, "cpu": cpu_seconds() - c0, **compiled.stages}


def cold(config, engine):
    """Run in a fresh process: one kernel, timed from the process start."""
    tc = Toolchain.from_file(config)
    fam, cases = _cases()
    first = time.perf_counter()
    build(tc, fam, cases[0], engine)
    end = time.perf_counter()
    print(json.dumps({"first_kernel": end - first, "since_start": end - START}))


def warm(tc, kernels, engine, triton=None):
    """(median, min, max) of the whole, {stage or "cpu": median}, and the
    figures of the Triton kernel `triton` compiled after each of ours (the
    same arch), so that both meet the same load."""
    fam, cases = _cases()
    build(tc, fam, cases[0], engine)
    runs, theirs = [], []
    for i in range(kernels):
        case = cases[i % len(cases)]
        runs.append(build(tc, fam, case, engine))
        if triton is not None:
            theirs.append(dict(triton.compile(case.arch), arch=case.arch))
    wholes = [sum(r[s] for s in STAGES) for r in runs]
    return (
        (statistics.median(wholes), min(wholes), max(wholes)),
        {s: statistics.median(r[s] for r in runs) for s in (*STAGES, "cpu", *LLVM_STAGES)},
        theirs,
    )


class Triton:
    """triton_compile.py in a child process, compiling one kernel per request."""

    SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "triton_compile.py")

    def __init__(self):
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
        for arch in CASE_ARCHS:  # warm for every arch, as rocke is by the time it is timed
            self.compile(arch)

    @staticmethod
    def _target(arch):
        return [arch, str(archs.get(arch).wave_sizes[0])]

    def cold(self):
        """(wall s of a fresh process to its first code object, that kernel's own wall s)."""
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, self.SCRIPT, "--cold", *self._target(CASE_ARCHS[0])],
            capture_output=True,
            text=True,
            env=self.env,
        )
        if proc.returncode != 0:
            raise SystemExit(
                f"compile_bench: Triton's cold compile failed (exit {proc.returncode}):\n{proc.stderr.strip()[-3000:]}"
            )
        return time.perf_counter() - start, json.loads(proc.stdout)["first_kernel"]

    def compile(self, arch):
        """{"wall", "cpu"} of one kernel for `arch`."""
        self.proc.stdin.write(" ".join(self._target(arch)) + "\n")
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("configs", nargs="+", help="toolchain.json of each flavor")
    parser.add_argument("--kernels", type=int, default=12, help="warm kernels per flavor and engine (and Triton's)")
    parser.add_argument("--cold", choices=ENGINES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cold:
        cold(args.configs[0], args.cold)
        return 0
    toolchains = sorted(
        ((Toolchain.from_file(p), p) for p in args.configs), key=lambda tp: flavor_facts.NAMES.index(tp[0].flavor)
    )
    start = figures.machine()
    triton = Triton()
    try:
        lines = _compare(args, toolchains, triton)
    finally:
        triton.close()
    cmd = figures.command("//app/bench:compile", __file__, [("--kernels", args.kernels)])
    body = "\n".join([f"At the start: {start}.", "", *lines])
    return figures.publish("compile", "Compiling a kernel: spec to code object, beside Triton", cmd, body)


# The table's columns, one per figure of a flavor's row.
COLUMNS = (
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


def _row(cells):
    return "| " + " | ".join(cells) + " |"


def _compare(args, toolchains, triton):
    """The table's lines: every flavor, then Triton's kernels compiled beside them."""
    cold_wall, cold_first = triton.cold()
    lines = [_row(COLUMNS), "|---" * len(COLUMNS) + "|"]
    theirs = []
    for tc, path in toolchains:
        colds = []
        for engine in ENGINES:
            start = time.perf_counter()
            cmd = [sys.executable, __file__, "--cold", engine, path]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
            colds.append(f"{time.perf_counter() - start:.2f} s ({json.loads(proc.stdout)['first_kernel']:.2f})")
        (m, lo, hi), stages, beside = warm(tc, args.kernels, "cpp", triton)
        (pm, plo, phi), pstages, _ = warm(tc, args.kernels, "python")
        theirs += beside
        wall_ratio = m / statistics.median(k["wall"] for k in beside)
        cpu_ratio = stages["cpu"] / statistics.median(k["cpu"] for k in beside)
        lines.append(
            _row(
                [
                    tc.flavor,
                    " / ".join(colds),
                    f"{m:.3f} s ({lo:.3f}-{hi:.3f})",
                    f"{wall_ratio:.2f}x / {cpu_ratio:.2f}x",
                    " / ".join(f"{stages[s]:.3f}" for s in STAGES) + " s",
                    f"{stages['cpu']:.3f} s",
                    " / ".join(f"{stages[s]:.3f}" for s in LLVM_STAGES) + " s",
                    f"{pm:.3f} s ({plo:.3f}-{phi:.3f})",
                    f"{pstages['cpu']:.3f} s",
                ]
            )
        )
        print(lines[-1], file=sys.stderr, flush=True)  # progress: a flavor takes a minute or more
    walls = [k["wall"] for k in theirs]
    cpu = statistics.median(k["cpu"] for k in theirs)
    warm_wall = f"{statistics.median(walls):.3f} s ({min(walls):.3f}-{max(walls):.3f})"
    cold_triton = f"{cold_wall:.2f} s ({cold_first:.2f})"
    triton_row = [f"Triton {triton.version}, every kernel above", cold_triton, warm_wall, "1", "", f"{cpu:.3f} s"]
    lines.append(_row(triton_row + [""] * (len(COLUMNS) - len(triton_row))))
    per_arch = (
        f"{arch} {statistics.median(k['wall'] for k in theirs if k['arch'] == arch):.3f} s" for arch in CASE_ARCHS
    )
    return [*lines, "", "Triton's warm wall per arch, median: " + ", ".join(per_arch) + "."]


if __name__ == "__main__":
    sys.exit(main())
