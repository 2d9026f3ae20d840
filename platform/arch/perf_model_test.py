"""perf_model.json: every figure names its source or says it has none; the
ISA guides' MFMA passes agree with the data sheets' peaks; broken entries are
refused by field."""

import copy
import json

import pytest

from arch import arch, json_edits, perf_model


def _raw():
    with open(perf_model.PATH) as f:
        return json.load(f)


def test_the_file_is_canonical():
    with open(perf_model.PATH) as f:
        assert f.read() == json_edits.canonical(_raw())


def test_every_emulated_arch_has_figures():
    assert sorted(perf_model.FACTS) == ["gfx1201", "gfx942", "gfx950"]


def test_the_figures_without_a_source_are_the_assumed_ones():
    # The report and the docs name these as assumptions; a new unsourced figure must be named too.
    assert perf_model.unsourced("gfx942") == {}
    assert perf_model.unsourced("gfx950") == {}
    assert sorted(perf_model.unsourced("gfx1201")) == [
        "cycles_per_pass",
        "l2_gbps",
        "smem_latency_cycles",
    ]


@pytest.mark.parametrize("name", ["gfx942", "gfx950"])
def test_full_rate_mfma_passes_give_the_data_sheet_peak(name):
    # Two sources that must agree: the ISA guide's passes of the fastest f16 MFMA, on every SIMD of
    # every CU at the peak clock, are the data sheet's dense FP16 peak.
    facts, info = perf_model.get(name), arch.get(name)
    simds = arch.registers(name).eus_per_cu
    best = 0
    for mnemonic, passes in facts.matrix_passes.items():
        m, n, k = (int(x) for x in mnemonic.split("_")[3].split("x"))
        best = max(best, 2 * m * n * k / (passes * facts.cycles_per_pass))
    tflops = best * simds * info.cus * facts.clock_mhz * 1e6 / 1e12
    assert tflops == pytest.approx(facts.peak_matrix_tflops["f16"], rel=2e-3)


@pytest.mark.parametrize("name", ["gfx942", "gfx950"])
def test_cdna_l2_peak_is_its_channels_at_128_bytes_a_clock(name):
    # The CDNA3 white paper (gfx942) and rocprofiler-compute (gfx950) must agree on the rule: 8 XCDs of
    # 16 L2 channels, each 128 bytes a clock at the peak clock.
    facts = perf_model.get(name)
    assert facts.l2_gbps == round(8 * 16 * 128 * facts.clock_mhz / 1000)


def _refused(edit, match):
    raw = copy.deepcopy(_raw())
    edit(raw)
    with pytest.raises(perf_model.PerfModelError, match=match):
        perf_model._load(raw)


def test_a_figure_without_source_or_note_is_refused():
    _refused(
        json_edits.set_at(["archs", "gfx942", "clock_mhz"], {"value": 2100, "source": None}),
        r"gfx942.clock_mhz: expected a \"note\" saying why a figure has no source",
    )


def test_a_source_the_file_does_not_list_is_refused():
    _refused(
        json_edits.set_at(["archs", "gfx942", "clock_mhz", "source"], "a blog"),
        r"gfx942.clock_mhz.source: expected one of \[",
    )


def test_a_source_no_figure_names_is_refused():
    _refused(
        json_edits.set_at(["sources", "a_blog"], "a post no figure was read from"),
        r"sources.a_blog: expected a source some figure names",
    )


def test_a_missing_figure_is_refused():
    _refused(json_edits.delete_at(["archs", "gfx950", "dram_gbps"]), r"gfx950: expected exactly the keys")
