"""Test-action figures from a Bazel build-event JSON file.

    bep_stats.py BEP.json [PREFIX]
    bep_stats.py --executed BEP.json
    bep_stats.py --longest N BEP.json

Prints: tests=N executed=E cached_locally=L cached_remotely=R, counting only
labels starting with PREFIX when given (an executed test is one whose result
came from running it, not from a cache; Bazel reports disk-cache hits as
cached remotely too). With --executed: the labels of the executed tests,
sorted, one a line. With --longest: the executed tests' time summed
(`summed=S tests=T`, seconds), then the N longest, `SECONDS LABEL` a line,
longest first (a test run in several attempts or shards counts their sum).
"""

import json
import sys


def results(path):
    """(label, how) per test result: how is executed, cached_locally or cached_remotely."""
    out = []
    with open(path) as f:
        for line in f:
            event = json.loads(line)
            ident = event.get("id", {}).get("testResult")
            if not ident:
                continue
            result = event.get("testResult", {})
            if result.get("executionInfo", {}).get("cachedRemotely"):
                how = "cached_remotely"
            elif result.get("cachedLocally"):
                how = "cached_locally"
            else:
                how = "executed"
            out.append((ident["label"], how))
    return out


def durations(path):
    """{label: seconds} of the executed tests: every attempt and shard summed."""
    out = {}
    with open(path) as f:
        for line in f:
            event = json.loads(line)
            ident = event.get("id", {}).get("testResult")
            result = event.get("testResult", {})
            if not ident or result.get("cachedLocally") or result.get("executionInfo", {}).get("cachedRemotely"):
                continue
            out[ident["label"]] = out.get(ident["label"], 0) + int(result.get("testAttemptDurationMillis", 0)) / 1000
    return out


def main(argv):
    if argv[:1] == ["--longest"] and len(argv) == 3 and argv[1].isdigit():
        times = durations(argv[2])
        print(f"summed={sum(times.values()):.0f} tests={len(times)}")
        for label, seconds in sorted(times.items(), key=lambda x: (-x[1], x[0]))[: int(argv[1])]:
            print(f"{seconds:.1f} {label}")
        return 0
    if argv[:1] == ["--executed"] and len(argv) == 2:
        for label in sorted({label for label, how in results(argv[1]) if how == "executed"}):
            print(label)
        return 0
    if not 1 <= len(argv) <= 2 or argv[0].startswith("--"):
        print(
            f"bep_stats: expected BEP.json [PREFIX], --executed BEP.json or --longest N BEP.json, got {' '.join(argv) or 'nothing'}",
            file=sys.stderr,
        )
        return 2
    prefix = argv[1] if len(argv) == 2 else ""
    counts = {"executed": 0, "cached_locally": 0, "cached_remotely": 0}
    for label, how in results(argv[0]):
        if label.startswith(prefix):
            counts[how] += 1
    print(f"tests={sum(counts.values())} " + " ".join(f"{k}={v}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
