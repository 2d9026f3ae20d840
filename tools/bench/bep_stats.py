"""Test-action figures from a Bazel build-event JSON file.

    bep_stats.py BEP.json [PREFIX]

Prints: tests=N executed=E cached_locally=L cached_remotely=R, counting only
labels starting with PREFIX when given (an executed test is one whose result
came from running it, not from a cache; Bazel reports disk-cache hits as
cached remotely too).
"""

import json
import sys


def main(path, prefix=""):
    tests = executed = local = remote = 0
    with open(path) as f:
        for line in f:
            event = json.loads(line)
            ident = event.get("id", {}).get("testResult")
            if not ident or not ident["label"].startswith(prefix):
                continue
            result = event.get("testResult", {})
            tests += 1
            if result.get("executionInfo", {}).get("cachedRemotely"):
                remote += 1
            elif result.get("cachedLocally"):
                local += 1
            else:
                executed += 1
    print(f"tests={tests} executed={executed} cached_locally={local} cached_remotely={remote}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
