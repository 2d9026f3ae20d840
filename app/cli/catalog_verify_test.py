"""A rocke_catalog's NAME_verify_test (app/planner/catalog.bzl): `rocke
verify` on the catalog's tar as Bazel built it, every distinct code object
run in the emulator on ROCKE_WORKGROUPS output tiles of its problem against
numpy; every row must compute the right numbers."""

import os
import tarfile

import rocke_families

from app.cli import command_line, verify_cmd


def test_every_row_of_the_catalog_computes_the_right_numbers(tmp_path, capsys):
    with tarfile.open(os.environ["ROCKE_CATALOG"]) as tar:
        tar.extractall(tmp_path, filter="data")
    argv = ["verify", str(tmp_path), "--workgroups", os.environ["ROCKE_WORKGROUPS"]]
    status = command_line.main(argv, {"verify": verify_cmd}, rocke_families.FAMILIES)
    captured = capsys.readouterr()
    assert status == 0, captured.out + captured.err
    last = captured.out.splitlines()[-1]
    assert " rows wrong; " in last and ": 0 of " in last, last
