"""Byte-identity gate: the C++ engine's emitted IR and manifest against the
Python engine's, byte for byte.

    identity_check --python-irs A --cpp-irs B --python-manifest C --cpp-manifest D
"""

import argparse
import json
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag in ("--python-irs", "--cpp-irs", "--python-manifest", "--cpp-manifest"):
        parser.add_argument(flag, required=True)
    args = parser.parse_args(argv)
    with open(args.python_irs) as a, open(args.cpp_irs) as b:
        py, cpp = json.load(a), json.load(b)
    with open(args.python_manifest, "rb") as a, open(args.cpp_manifest, "rb") as b:
        same_manifest = a.read() == b.read()
    differ = sorted(i for i in py.keys() | cpp.keys() if py.get(i) != cpp.get(i))
    if not differ and same_manifest:
        print(f"PASS: {len(py)} cases byte-identical")
        return 0
    print(f"FAIL: Python and C++ engines differ on {len(differ)} case(s): {', '.join(differ[:20])}" + ("" if same_manifest else "; the manifests differ"))
    return 1


if __name__ == "__main__":
    sys.exit(main())
