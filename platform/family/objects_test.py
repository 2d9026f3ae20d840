"""NAME_objects_F's build (build_objects.py, objects.py) with a real LLVM: a
good case becomes a code object with its figures, an IR LLVM refuses
becomes that case's error in LLVM's words (not a failed action), the file
reads back byte for byte, and faults() (what the validity gate asserts) names the refused case with
those words, and a spill."""

import json
import os

from family import build_objects, manifest, objects
from ir import types as T
from ir.builder import KernelBuilder
from lower.llvm import lower
from toolchains.llvm.llvm import Toolchain

TC = Toolchain.current()


def _good():
    b = KernelBuilder("toy_store", arch="gfx942", workgroup_size=(64, 1, 1))
    out = b.arg("out", T.GLOBAL)
    b.store(b.offset(out, b.mul(b.thread_id(0), 4)), b.convert(b.thread_id(0), T.F32))
    return lower(b.finish(), TC.flavor)


def _files(tmp_path):
    """An irs file and a manifest of two cases, one of IR LLVM cannot parse."""
    irs = {"good_gfx942": _good(), "bad_gfx942": "define amdgpu_kernel void @bad( {\n"}
    entries = [
        manifest.entry_for(i, "gfx942", "toy_store" if i == "good_gfx942" else "bad", ir) for i, ir in irs.items()
    ]
    (tmp_path / "t.irs.json").write_text(json.dumps(irs))
    (tmp_path / "t.manifest").write_text(manifest.render(entries, manifest.header("toy", TC.flavor, "//x:y")))
    return tmp_path / "t.irs.json", tmp_path / "t.manifest"


def test_good_case_is_a_code_object_and_refused_case_is_its_error(tmp_path):
    irs, mf = _files(tmp_path)
    out = tmp_path / "t.objects.json"
    toolchain = os.environ["ROCKE_LLVM"]  # runfiles-relative, and a test runs in its runfiles
    assert (
        build_objects.main(["--irs", str(irs), "--manifest", str(mf), "--toolchain", toolchain, "--out", str(out)]) == 0
    )
    flavor, built = objects.read(out)
    assert flavor == TC.flavor
    assert sorted(built) == ["bad_gfx942", "good_gfx942"]
    good, bad = built["good_gfx942"], built["bad_gfx942"]
    assert good["code_object"][:4] == b"\x7fELF" and good["kernel"] == "toy_store"
    assert good["figures"]["workgroup_size"] == 64 and good["figures"]["vgpr"] >= 1
    assert bad["error"].startswith("LlvmError: ") and "bad" not in good.get("error", "")
    assert "code_object" not in bad
    # Canonical: what was read renders to the same bytes, and so does a second build.
    assert objects.render(flavor, built) == out.read_bytes()
    again = objects.build(json.loads(irs.read_text()), manifest.read(mf, "x"), TC)
    assert objects.render(TC.flavor, again) == out.read_bytes()


def test_faults_name_the_refused_case_with_llvms_words_and_an_overrun(tmp_path):
    irs, mf = _files(tmp_path)
    built = objects.build(json.loads(irs.read_text()), manifest.read(mf, "x"), TC)
    assert objects.faults("good_gfx942", built["good_gfx942"], TC.flavor) == []
    (fault,) = objects.faults("bad_gfx942", built["bad_gfx942"], TC.flavor)
    assert fault.startswith(f"bad_gfx942 on gfx942 with {TC.flavor}: LlvmError: "), fault
    spilled = dict(built["good_gfx942"], figures=dict(built["good_gfx942"]["figures"], vgpr_spill=3))
    (fault,) = objects.faults("good_gfx942", spilled, TC.flavor)
    assert fault.startswith(f"good_gfx942 on gfx942 with {TC.flavor}: ") and "spill" in fault, fault
    assert "waves" not in objects.figures(built["good_gfx942"])
