"""A rocke_catalog's archive: every kernel's row and code object -> index.json,
index.csv and one tar of them all, byte for byte the same from the same inputs.

    archive_main --out CATALOG.tar --index CATALOG.index.json --archs gfx942,gfx950 K1 K2 ...

Each K is a kernel_main action's folder: rows.json (its rows, or the record
of a refusal) and each row's code object at the row's path.

The tar holds index.json, index.csv and each code object at its row's path
(ARCH/NAME.hsaco), as `rocke build` lays out a catalog folder; its members
are sorted, owned by 0:0, dated 0 and mode 0644, so no build machine,
checkout or clock leaks into it.

index.json's "errors" are what `rocke build` lists for the same problems:
the refusals kernel_main recorded (one without an arch when every arch of
--archs refused the entry alike: jobs.merged) and each entry whose name an
earlier one has (problems.duplicate_names); such an entry's kernels are left
out, as `rocke build` builds none of them.
"""

import argparse
import io
import json
import os
import sys
import tarfile

from catalog import index
from files.atomic import OutputError, write_atomic
from planner import jobs, problems
from planner.jobs import ROWS


def _member(tar, path, data):
    info = tarfile.TarInfo(path)
    info.size, info.mtime, info.mode = len(data), 0, 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    tar.addfile(info, io.BytesIO(data))


def archive(records, archs):
    """(tar bytes, index.json bytes) of (record, code object) pairs, a record
    being a kernel's row or a refusal (kernel_main's, with no code object),
    for a catalog of `archs`."""
    named = [(r["problem"], r["name"]) for r, _ in records if "refused" not in r]
    named += [(r["refused"]["problem"], r["name"]) for r, _ in records if "refused" in r and r["name"] is not None]
    errors = problems.duplicate_names(named)
    dropped = {e.index for e in errors}
    refused = {}
    for r, _ in records:
        if "refused" in r and r["refused"]["problem"] not in dropped:
            e = r["refused"]
            refused.setdefault(e["problem"], []).append(
                problems.EntryError(e["problem"], e["field"], e["message"], e["arch"])
            )
    for problem in sorted(refused):
        errors += jobs.merged(sorted(refused[problem], key=lambda e: e.arch or ""), archs)
    kept = [(r, code) for r, code in records if "refused" not in r and r["problem"] not in dropped]
    rows = [r for r, _ in kept]
    index_json = index.index_json(rows, [index.error(e.index, e.arch, str(e)) for e in errors])
    files = {r["path"]: code for r, code in kept}
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
    parser.add_argument("--archs", required=True, help="the catalog's archs, comma-separated")
    parser.add_argument("folders", nargs="*", help="kernel_main output folders")
    args = parser.parse_args(argv)
    pairs = []
    for folder in args.folders:
        with open(os.path.join(folder, ROWS)) as r:
            rows = json.load(r)
        for row in rows:
            if "refused" in row:
                pairs.append((row, None))
                continue
            with open(os.path.join(folder, row["path"]), "rb") as c:
                pairs.append((row, c.read()))
    try:
        tar, index_json = archive(pairs, args.archs.split(","))
        write_atomic(args.out, tar)
        write_atomic(args.index, index_json)
    except OutputError as e:
        print(f"rocke catalog: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
