"""A rocke_catalog's archive: every kernel's row and code object -> index.json,
index.csv and one tar of them all, byte for byte the same from the same inputs.

    archive_main --out CATALOG.tar --index CATALOG.index.json K1 K2 ...

Each K is a kernel_main action's folder: rows.json (its rows) and each
row's code object at the row's path.

The tar holds index.json, index.csv and each code object at its row's path
(ARCH/NAME.hsaco), as `rocke build` lays out a catalog folder; its members
are sorted, owned by 0:0, dated 0 and mode 0644, so no build machine,
checkout or clock leaks into it.
"""

import argparse
import io
import json
import os
import sys
import tarfile

from catalog import index
from files.atomic import OutputError, write_atomic
from planner.jobs import ROWS


def _member(tar, path, data):
    info = tarfile.TarInfo(path)
    info.size, info.mtime, info.mode = len(data), 0, 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    tar.addfile(info, io.BytesIO(data))


def archive(pairs):
    """(tar bytes, index.json bytes) of (row, code object) pairs; ValueError on two kernels at one path."""
    rows, files = [], {}
    for row, code_object in pairs:
        if row["path"] in files:
            raise ValueError(f"two kernels of the catalog have the path {row['path']}: give one of the problems another \"name\"")
        rows.append(row)
        files[row["path"]] = code_object
    index_json = index.index_json(rows, [])
    files.update({"index.json": index_json, "index.csv": index.index_csv(rows)})
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for path in sorted(files):
            _member(tar, path, files[path])
    return out.getvalue(), index_json


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="the tar to write")
    parser.add_argument("--index", required=True, help="index.json, also written beside the tar")
    parser.add_argument("folders", nargs="*", help="kernel_main output folders")
    args = parser.parse_args(argv)
    pairs = []
    for folder in args.folders:
        with open(os.path.join(folder, ROWS)) as r:
            rows = json.load(r)
        for row in rows:
            with open(os.path.join(folder, row["path"]), "rb") as c:
                pairs.append((row, c.read()))
    try:
        tar, index_json = archive(pairs)
        write_atomic(args.out, tar)
        write_atomic(args.index, index_json)
    except (ValueError, OutputError) as e:
        print(f"rocke catalog: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
