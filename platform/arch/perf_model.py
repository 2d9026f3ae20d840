"""The performance model's figures: one JSON data file (perf_model.json), every
figure with the source it comes from. They are what platform/emu/model.py
times a kernel with: a yardstick, not a promise of hardware time.

    from arch import perf_model
    f = perf_model.get("gfx942")
    f.clock_mhz, f.dram_gbps, f.peak_matrix_tflops["f16"], f.matrix_passes["v_mfma_f32_32x32x8_f16"]

Each figure is {"value": ..., "source": KEY or null}; `source` names an entry of
the file's "sources", whose text says where the figure was read. A null source
must carry a "note" saying that none was reached and what was assumed instead:
`unsourced(arch)` lists those figures, so a report can say which they are.
"""

import dataclasses
import json
import os
import types

from arch.schema import Schema

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "perf_model.json")
FIELDS = (
    "clock_mhz",
    "cus_per_wgp",
    "cycles_per_pass",
    "dram_gbps",
    "issue_cycles",
    "l2_gbps",
    "lds_latency_cycles",
    "matrix_passes",
    "part",
    "peak_matrix_tflops",
    "smem_latency_cycles",
    "valu_lanes_per_cycle",
    "vmem_bytes_per_cycle",
    "vmem_latency_cycles",
)
LATENCIES = ("lds", "smem", "vmem")


class PerfModelError(ValueError):
    """perf_model.json breaks its schema, or lacks the arch asked for."""


_SCHEMA = Schema(PerfModelError, "platform/arch/perf_model.py")


@dataclasses.dataclass(frozen=True)
class PerfFacts:
    arch: str
    part: str  # the product whose data sheet the figures are from
    clock_mhz: int  # peak engine clock
    cus_per_wgp: int  # CUs of one unit of archs.json's eus_per_cu SIMDs: 2 on RDNA (a WGP), 1 on CDNA
    dram_gbps: int  # peak HBM/GDDR bandwidth, GB/s
    l2_gbps: int | None  # peak L2 bandwidth, GB/s (None: not known, no L2 bound)
    peak_matrix_tflops: types.MappingProxyType  # A/B element type -> dense matrix TFLOPS of the part
    valu_lanes_per_cycle: int  # a SIMD's width
    issue_cycles: int  # cycles between two instructions of one wave
    cycles_per_pass: int | None  # an MFMA pass (None: the arch states no passes)
    matrix_passes: types.MappingProxyType  # mnemonic -> passes
    vmem_bytes_per_cycle: int  # a CU's vector memory path
    latency_cycles: types.MappingProxyType  # lds, smem, vmem -> cycles from issue to data (FIELD_latency_cycles)


def _figure(entry, where, sources):
    _SCHEMA.check(
        isinstance(entry, dict) and "value" in entry and "source" in entry,
        where,
        'an object with "value" and "source"',
        entry,
    )
    _SCHEMA.check(set(entry) <= {"value", "source", "note"}, where, 'only "value", "source" and "note"', sorted(entry))
    source = entry["source"]
    if source is None:
        _SCHEMA.check(bool(entry.get("note")), where, 'a "note" saying why a figure has no source', entry)
    else:
        _SCHEMA.choice(source, sorted(sources), f"{where}.source")
    return entry["value"]


def _load(raw):
    _SCHEMA.keys(raw, ("archs", "sources"), "perf_model.json")
    sources = raw["sources"]
    for key, text in sources.items():
        _SCHEMA.name(text, f"sources.{key}")
    table = {}
    for arch, entry in sorted(raw["archs"].items()):
        _SCHEMA.keys(entry, sorted(FIELDS), arch)
        v = {f: _figure(entry[f], f"{arch}.{f}", sources) for f in FIELDS}
        for f in (
            "clock_mhz",
            "cus_per_wgp",
            "dram_gbps",
            "valu_lanes_per_cycle",
            "issue_cycles",
            "vmem_bytes_per_cycle",
        ):
            _SCHEMA.positive(v[f], f"{arch}.{f}")
        if v["l2_gbps"] is not None:
            _SCHEMA.positive(v["l2_gbps"], f"{arch}.l2_gbps")
        for k in LATENCIES:
            _SCHEMA.positive(v[f"{k}_latency_cycles"], f"{arch}.{k}_latency_cycles")
        for k, n in v["matrix_passes"].items():
            _SCHEMA.positive(n, f"{arch}.matrix_passes.{k}")
        _SCHEMA.check(
            not v["matrix_passes"] or v["cycles_per_pass"],
            f"{arch}.cycles_per_pass",
            "a number of cycles when matrix_passes lists passes",
            v["cycles_per_pass"],
        )
        for k, x in v["peak_matrix_tflops"].items():
            _SCHEMA.check(
                isinstance(x, (int, float)) and x > 0, f"{arch}.peak_matrix_tflops.{k}", "a positive number", x
            )
        v["peak_matrix_tflops"] = types.MappingProxyType(dict(v["peak_matrix_tflops"]))
        v["matrix_passes"] = types.MappingProxyType(dict(v["matrix_passes"]))
        v["latency_cycles"] = types.MappingProxyType({k: v.pop(f"{k}_latency_cycles") for k in LATENCIES})
        table[arch] = PerfFacts(arch=arch, **v)
    cited = {entry[f]["source"] for entry in raw["archs"].values() for f in FIELDS}
    for key in sorted(sources):
        _SCHEMA.check(key in cited, f"sources.{key}", "a source some figure names (cite it, or remove it)", key)
    return types.MappingProxyType(table), raw


def _read():
    with open(PATH) as f:
        return _load(json.load(f))


FACTS, _RAW = _read()


def get(arch):
    """The figures of `arch`; PerfModelError naming the modelled archs for another."""
    if arch not in FACTS:
        raise PerfModelError(
            f"performance model: no figures for {arch!r}; perf_model.json has {', '.join(FACTS)} "
            "(add the arch there, each figure with its source)"
        )
    return FACTS[arch]


def unsourced(arch):
    """The fields of `arch` whose figure has no source, each with its note."""
    entry = _RAW["archs"][get(arch).arch]
    return {f: entry[f]["note"] for f in FIELDS if entry[f]["source"] is None}
