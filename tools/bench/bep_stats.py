"""Test-action figures from a Bazel build-event JSON file.

Prints: tests=N executed=E cached_locally=L cached_remotely=R
(an executed test is one whose result came from running it, not from a cache).
"""

import json
import sys


def main(path):
    tests = executed = local = remote = 0
    with open(path) as f:
        for line in f:
            event = json.loads(line)
            if "testResult" not in event.get("id", {}):
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
    main(sys.argv[1])
