"""C++ against Python emission: build + print + lower, per kernel.

    ./bazel run //app/bench:engines [-- --flavor llvm23 --repeat 7 --clock wall]

For every case of every registered family with a C++ engine (the registry's
PYTHON_ONLY families are listed, not timed), each engine builds the kernel,
prints its .rk text and lowers it for the flavor; the figure per case is
the median of --repeat runs, and the table shows the median over the cases
(and the slowest case). The C++ engine is called in process through
rocke_library_engine (the case's JSON made outside the timing). Both outputs
are compared first, so the figures are of engines that agree byte for byte.
Prints a Markdown table and writes it to docs/figures/engines.md
(figures.py); nothing here asserts a speed.

--clock wall (the default) times each run by the wall clock; --clock cpu by
the process's CPU time, which on a machine shared with other work counts
only this process's own running (waiting for a core is not counted; both
engines run in this one thread, so both are measured alike).
"""

import argparse
import statistics
import sys
import time

import rocke_families
import rocke_library_engine
from family.engines import case_json, lower_family
from ir.printer import print_kernel
from lower.flavors import ArchDomainError
from lower.llvm import lower
from tools.bench import figures


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def median_seconds(fn, repeat, clock):
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append(clock() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flavor", default="llvm23", help="the flavor to lower for (default llvm23)")
    parser.add_argument(
        "--repeat", type=int, default=7, help="runs per case and engine; the median is kept (default 7)"
    )
    parser.add_argument(
        "--clock", choices=sorted(CLOCKS), default="wall", help="wall clock or this process's CPU time (default wall)"
    )
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat: expected a positive count, got {args.repeat}")
    clock = CLOCKS[args.clock]
    rows = [
        f"| family ({args.flavor}, {args.clock} clock) | cases | Python per kernel | C++ per kernel "
        "| C++ speed-up (median; slowest case) |",
        "|---|---|---|---|---|",
    ]
    for module in rocke_families.FAMILIES:
        if module in rocke_families.PYTHON_ONLY:
            rows.append(f"| {module} | - | - | - | no C++ engine (PYTHON_ONLY) |")
            continue
        fam = rocke_families.FAMILIES[module]
        py_times, cpp_times = [], []
        for case in fam.cases:
            try:
                lower_family(fam, case, args.flavor, engine="both", cpp=rocke_library_engine)
            except ArchDomainError:
                continue  # the flavor does not know the arch: nothing to time
            text = case_json(case)

            def python():
                kernel = fam.build(case)
                print_kernel(kernel)
                lower(kernel, args.flavor)

            py_times.append(median_seconds(python, args.repeat, clock))
            cpp_times.append(
                median_seconds(lambda: rocke_library_engine.emit(fam.name, text, args.flavor), args.repeat, clock)
            )
        py, cpp = statistics.median(py_times), statistics.median(cpp_times)
        slowest = max(range(len(py_times)), key=lambda i: cpp_times[i])
        rows.append(
            f"| {fam.name} | {len(py_times)} | {py * 1e3:.2f} ms | {cpp * 1e3:.3f} ms | "
            f"{py / cpp:.0f}x; {py_times[slowest] / cpp_times[slowest]:.0f}x |"
        )
        print(rows[-1], file=sys.stderr, flush=True)  # progress: a family takes up to minutes
    options = [("--flavor", args.flavor), ("--repeat", args.repeat), ("--clock", args.clock)]
    cmd = figures.command("//app/bench:engines", __file__, options)
    return figures.publish("engines", "The C++ engine against the Python engine", cmd, "\n".join(rows))


if __name__ == "__main__":
    sys.exit(main())
