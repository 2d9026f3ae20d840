"""Bazel's own test counts, read from a build-event JSON file.

    count_results.py BEP.json

Prints one line, "PASSED FAILED NOT_BUILT SKIPPED": the categories of Bazel's
summary ("N tests pass", "N fail locally", "N fail to build", "N were
skipped"), which add up to the test targets Bazel set out to run. A build that
stops half-way still has all four: the tests that ran, the ones whose own build
failed, and the ones it never got to. Each test that did not pass is named on
stderr. Exit status 0, or 2 (with the reason) if the file is missing or unreadable.
"""

import json
import sys

# testSummary.overallStatus -> category. Anything else (FAILED, TIMEOUT,
# INCOMPLETE, REMOTE_FAILURE, TOOL_HALTED_BEFORE_TESTING) ran and failed.
STATUS = {
    "PASSED": "passed",
    "FLAKY": "passed",
    "FAILED_TO_BUILD": "not_built",
    "NO_STATUS": "skipped",
}
CATEGORIES = ("passed", "failed", "not_built", "skipped")


class BepError(Exception):
    """The build-event file cannot be read."""


def read_events(path):
    """The events of a BEP JSON file. A cut-off last line (Bazel killed while
    writing) is dropped; a broken line elsewhere is an error."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as err:
        raise BepError(f"cannot read the build-event file {path}: {err.strerror}; did Bazel stop before writing it?")
    events = []
    for number, line in enumerate(lines, 1):
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            if number < len(lines):
                raise BepError(f"{path}:{number} is not a JSON build event; expected one JSON object per line")
    return events


def classify(events):
    """{label: category} for every test target of the invocation."""
    tests, summaries, completed = set(), {}, {}
    for event in events:
        kind, ident = next(iter(event["id"].items()))
        if kind == "targetConfigured" and "testSize" in event.get("configured", {}):
            tests.add(ident["label"])
        elif kind == "testSummary":
            status = event.get("testSummary", {}).get("overallStatus")
            summaries[ident["label"]] = STATUS.get(status, "failed") if status else "skipped"
        elif kind == "targetCompleted":
            completed[ident["label"]] = event
    result = {}
    for label in tests:
        if label in summaries:
            result[label] = summaries[label]
        elif label in completed and "completed" in completed[label]:
            event = completed[label]
            if not event["completed"].get("success", False):
                result[label] = "not_built"
            elif any("testSummary" in child for child in event.get("children", [])):
                result[label] = "skipped"  # announced a test run, never reported one
            # else: built but not tested (e.g. left out by --test_tag_filters)
        else:
            result[label] = "skipped"  # its build was aborted or never started
    return result


def count(events):
    """(passed, failed, not_built, skipped) and the labels that did not pass."""
    result = classify(events)
    counts = tuple(sum(1 for c in result.values() if c == category) for category in CATEGORIES)
    not_passed = sorted((category, label) for label, category in result.items() if category != "passed")
    return counts, not_passed


def main(argv):
    if len(argv) != 1:
        print("usage: count_results.py BEP.json", file=sys.stderr)
        return 2
    try:
        counts, not_passed = count(read_events(argv[0]))
    except BepError as err:
        print(f"count_results: {err}", file=sys.stderr)
        return 2
    for category, label in not_passed:
        print(f"{category.replace('_', ' ')}: {label}", file=sys.stderr)
    print(*counts)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
