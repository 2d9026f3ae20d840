"""Golden gate: the emitted manifest (and representative IR) against the
blessed files under goldens/.

    golden_check --manifest M --irs IRS.json --golden G --golden-ir-dir D --bless-command CMD

On a difference it names the changed, new and missing cases, shows the first
differing IR lines of changed representative cases, and prints the exact
bless command. Exit status 1 then, 0 when everything matches.
"""

import argparse
import difflib
import json
import os
import sys

from family import manifest

SHOWN_LINES = 12


def compare(new, old):
    changed = sorted(i for i in new.keys() & old.keys() if new[i] != old[i])
    return changed, sorted(new.keys() - old.keys()), sorted(old.keys() - new.keys())


def ir_diff(old_text, new_text, name):
    lines = list(difflib.unified_diff(old_text.splitlines(), new_text.splitlines(), f"golden/{name}", f"emitted/{name}", n=1, lineterm=""))
    return lines[: SHOWN_LINES + 3]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag in ("--manifest", "--irs", "--golden", "--golden-ir-dir", "--bless-command"):
        parser.add_argument(flag, required=True)
    args = parser.parse_args(argv)
    with open(args.manifest) as f:
        new = manifest.parse(f.read(), args.manifest)
    with open(args.irs) as f:
        irs = json.load(f)
    if not os.path.exists(args.golden):
        print(f"FAIL: no golden file {args.golden} yet.\nBless it: {args.bless_command}")
        return 1
    with open(args.golden) as f:
        old = manifest.parse(f.read(), args.golden)
    changed, added, missing = compare(new, old)
    problems = [f"changed: {', '.join(changed)}"] * bool(changed) + [f"new: {', '.join(added)}"] * bool(added) + [f"missing: {', '.join(missing)}"] * bool(missing)
    for case_id in manifest.representative(new.values()):
        path = os.path.join(args.golden_ir_dir, case_id + ".ll")
        old_ir = open(path).read() if os.path.exists(path) else ""
        if old_ir != irs[case_id]:
            problems.append(f"representative IR of {case_id} differs{'' if old_ir else ' (no golden IR file)'}:")
            problems += ["    " + line for line in ir_diff(old_ir, irs[case_id], case_id + ".ll")]
    if not problems:
        print(f"PASS: {len(new)} cases match {args.golden}")
        return 0
    print(f"FAIL: the emitted IR differs from {args.golden}")
    print("\n".join("  " + p for p in problems))
    print(f"If the change is intended, bless it and review the golden diff:\n  {args.bless_command}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
