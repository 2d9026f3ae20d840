"""Seeded random kernels through the verifier, the lowering and the real LLVM
of every flavor, counted by outcome (see fuzz_llvm.py).

    ./bazel run //tools/bench:fuzz                      # 100,000 examples
    ./bazel run //tools/bench:fuzz -- --examples 5000 --seed 7

Prints the counts and writes them to docs/figures/fuzz.md (figures.py).
Exit status 1 if LLVM rejected any kernel that verified (a bug); the first
few are printed with LLVM's message.
"""

import argparse
import sys
import time

from ir import kernel_gen
from ir.fuzz_llvm import Tally
from arch import flavor_facts
from toolchains.llvm.llvm import Toolchain
from tools.bench import figures

CHUNK = 2000  # examples lowered before LLVM judges them: bounds memory


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("toolchains", nargs="+", help="toolchain.json of each flavor (the py_binary passes all four)")
    parser.add_argument("--examples", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0, help="the first example's seed; example i uses seed + i")
    parser.add_argument("--faults", type=float, default=0.05, help="kernel_gen's fault rate")
    args = parser.parse_args(argv)
    toolchains = sorted(
        (Toolchain.from_file(p) for p in args.toolchains), key=lambda t: flavor_facts.NAMES.index(t.flavor)
    )
    tallies = [Tally(tc.flavor) for tc in toolchains]
    seconds = {"generate and verify": 0.0, "lower": 0.0, **{f"LLVM {tc.flavor}": 0.0 for tc in toolchains}}
    start = time.perf_counter()
    for first in range(args.seed, args.seed + args.examples, CHUNK):
        t = time.perf_counter()
        cases = [
            kernel_gen.generate(kernel_gen.RandomChoices(s), args.faults)
            for s in range(first, min(first + CHUNK, args.seed + args.examples))
        ]
        seconds["generate and verify"] += time.perf_counter() - t
        for tc, tally in zip(toolchains, tallies):
            t = time.perf_counter()
            for case in cases:
                tally.add(case)
            seconds["lower"] += time.perf_counter() - t
            t = time.perf_counter()
            tally.judge(tc)
            seconds[f"LLVM {tc.flavor}"] += time.perf_counter() - t
        done = first + len(cases) - args.seed
        print(f"{done} examples, {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    seeds = f"seeds {args.seed}..{args.seed + args.examples - 1}"
    lines = [f"{args.examples} examples ({seeds}, faults {args.faults}) in {time.perf_counter() - start:.0f} s"]
    lines.append("  " + ", ".join(f"{k} {v:.0f} s" for k, v in seconds.items()))
    lines += [tally.report()[0] for tally in tallies]
    rejected = tallies[0].rejected
    lines.append(f"rejected by the verifier, by kind ({sum(rejected.values())}, {len(rejected)} kinds):")
    lines += [f"  {count:6d}  {kind}" for kind, count in sorted(rejected.items(), key=lambda kv: (-kv[1], kv[0]))]
    bugs = [line for tally in tallies if tally.bugs for line in tally.report()[1:]]
    lines += bugs
    options = [("--examples", args.examples), ("--seed", args.seed), ("--faults", args.faults)]
    cmd = figures.command("//tools/bench:fuzz", __file__, options)
    text = "\n".join(lines)
    status = figures.publish("fuzz", "Random kernels through every flavor's LLVM", cmd, f"```\n{text}\n```", text)
    return 1 if bugs else status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
