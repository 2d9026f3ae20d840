"""Golden gate: the emitted manifest (and representative IR) against the
blessed files under goldens/.

    golden_check --manifest M --irs IRS.json --golden G --golden-ir-dir D --bless-target LABEL

On a difference it names the changed, new and missing cases, shows the first
differing IR lines of changed representative cases, names IR files that are
no longer representative, and prints the exact bless command. A corrupt
golden is named with file:line. Exit status 1 then, 0 when everything
matches.
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
    lines = list(
        difflib.unified_diff(
            old_text.splitlines(), new_text.splitlines(), f"golden/{name}", f"emitted/{name}", n=1, lineterm=""
        )
    )
    return lines[: SHOWN_LINES + 3]


def ir_problems(new, irs, ir_dir, bless_target):
    """What differs between the kept IR files and the representatives' IR."""
    problems, kept = [], {f"{i}.ll": i for i, e in sorted(new.items()) if e.kept}
    for fname, case_id in kept.items():
        path = os.path.join(ir_dir, fname)
        # A garbled file still gets a diff, not a decode error.
        old_ir = open(path, encoding="utf-8", errors="replace").read() if os.path.exists(path) else ""
        want = manifest.ir_file(irs[case_id], bless_target)
        if old_ir != want:
            problems.append(f"representative IR of {case_id} differs{'' if old_ir else ' (no golden IR file)'}:")
            problems += ["    " + line for line in ir_diff(old_ir, want, fname)]
    stale = sorted(set(os.listdir(ir_dir)) - set(kept)) if os.path.isdir(ir_dir) else []
    problems += [f"stale IR file {name}: not a representative any more" for name in stale]
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag in ("--manifest", "--irs", "--golden", "--golden-ir-dir", "--bless-target"):
        parser.add_argument(flag, required=True)
    args = parser.parse_args(argv)
    command = manifest.bless_command(args.bless_target)
    new = manifest.read(args.manifest, manifest.EMITTED_FIX)
    with open(args.irs) as f:
        irs = json.load(f)
    if not os.path.exists(args.golden):
        print(f"FAIL: no golden file {args.golden} yet.\nBless it: {command}")
        return 1
    try:
        old = manifest.read(args.golden, manifest.golden_fix(args.bless_target))
    except manifest.ManifestError as e:
        print(f"FAIL: corrupt golden: {e}")
        return 1
    changed, added, missing = compare(new, old)
    problems = (
        [f"changed: {', '.join(changed)}"] * bool(changed)
        + [f"new: {', '.join(added)}"] * bool(added)
        + [f"missing: {', '.join(missing)}"] * bool(missing)
    )
    problems += ir_problems(new, irs, args.golden_ir_dir, args.bless_target)
    if not problems:
        print(f"PASS: {len(new)} cases match {args.golden}")
        return 0
    print(f"FAIL: the emitted IR differs from {args.golden}")
    print("\n".join("  " + p for p in problems))
    print(f"If the change is intended, bless it and review the golden diff:\n  {command}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
