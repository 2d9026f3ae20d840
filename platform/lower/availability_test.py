"""The lowering never emits an intrinsic its flavor's probed table lacks for
the arch at hand (tables: //platform/arch:availability_llvmNN)."""

import json
import os
import re

import pytest

from arch import arch as archs
from lower import flavors
from lower.coverage import corpus
from lower.llvm import lower
from tile.gemm_example import gemm_kernel

TABLES = {}
for flavor in flavors.FLAVORS:
    with open(os.path.join("platform", "arch", f"availability_{flavor}.json")) as f:
        TABLES[flavor] = json.load(f)["intrinsics"]


def cases():
    for flavor in flavors.FLAVORS:
        for arch in sorted(a for a in archs.ARCHS if a in flavors.get(flavor).cpus):
            yield flavor, arch


def emitted(text):
    return set(re.findall(r"^declare .*? @(llvm\.[\w.]+)\(", text, re.M))


@pytest.mark.parametrize("flavor,arch", list(cases()))
def test_lowering_emits_only_available_intrinsics(flavor, arch):
    kernels = corpus(arch) + [gemm_kernel(arch, d)[0] for d in ("f16", "bf16")]
    for kernel in kernels:
        for name in emitted(lower(kernel, flavor)):
            assert arch in TABLES[flavor].get(name, []), (
                f"{kernel.name}: {name} is not available on {arch} with {flavor}"
            )


def test_tables_know_what_llvm_rejects():
    # Measured facts the probes must rediscover: gfx1250's WMMA exists only there,
    # and the gfx950-only MFMAs are absent on gfx942.
    for flavor in ("llvm22", "llvm23", "llvm24"):
        assert TABLES[flavor]["llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16"] == ["gfx1250"]
    for flavor in flavors.FLAVORS:
        # gfx950's transpose read and direct-to-LDS load: every flavor compiles
        # them there, and LLVM cannot select them anywhere else.
        for name in (
            "llvm.amdgcn.ds.read.tr16.b64.v4f16",
            "llvm.amdgcn.ds.read.tr16.b64.v4bf16",
            "llvm.amdgcn.ds.read.tr16.b64.v4i16",
            "llvm.amdgcn.global.load.lds",
        ):
            assert TABLES[flavor][name] == ["gfx950"], (flavor, name, TABLES[flavor][name])
        # The scheduling barrier the gfx12 tile uses exists on every arch.
        known = sorted(a for a in archs.ARCHS if a in flavors.get(flavor).cpus)
        assert TABLES[flavor]["llvm.amdgcn.sched.barrier"] == known, (
            flavor,
            TABLES[flavor]["llvm.amdgcn.sched.barrier"],
        )
        for name in (
            "llvm.amdgcn.mfma.f32.16x16x32.f16",
            "llvm.amdgcn.mfma.f32.32x32x16.f16",
            "llvm.amdgcn.mfma.f32.32x32x16.bf16",
        ):
            where = TABLES[flavor][name]
            assert "gfx950" in where and "gfx942" not in where, (flavor, name, where)
