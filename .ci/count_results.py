"""Counts test results in a Bazel build-event JSON file: prints "PASSED FAILED".

A test that did not report a summary because its build failed counts as failed.
"""

import json
import sys

PASSING = {"PASSED", "FLAKY"}


def main(path):
    summaries, completed = {}, {}
    with open(path) as f:
        for line in f:
            event = json.loads(line)
            ident = event.get("id", {})
            if "testSummary" in ident:
                summaries[ident["testSummary"]["label"]] = event["testSummary"].get("overallStatus", "NO_STATUS")
            elif "targetCompleted" in ident and "completed" in event and "testTimeoutSeconds" in event["completed"]:
                completed[ident["targetCompleted"]["label"]] = event["completed"].get("success", False)
            elif "targetCompleted" in ident and "aborted" in event:
                completed[ident["targetCompleted"]["label"]] = False
    passed = sum(1 for s in summaries.values() if s in PASSING)
    failed = sum(1 for s in summaries.values() if s not in PASSING)
    failed += sum(1 for label, ok in completed.items() if label not in summaries and not ok)
    for label, status in sorted(summaries.items()):
        if status not in PASSING:
            print(f"failed: {label} {status}", file=sys.stderr)
    print(passed, failed)


if __name__ == "__main__":
    main(sys.argv[1])
