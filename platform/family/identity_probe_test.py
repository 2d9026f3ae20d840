"""NAME_byte_identity_can_fail, created by rocke_family with cpp_engine: the
byte-identity gate can fail. The C++ emitter runs with its test-only
--perturb-case ID (one byte of that case's .rk text changed) over the
family's case list, and identity_check, given the Python emitter's outputs,
must fail naming that case and no other.

Environment: ROCKE_CPP_EMITTER, ROCKE_FAMILY (registered name), ROCKE_FLAVOR,
ROCKE_FAMILY_CASES, ROCKE_BLESS_TARGET, ROCKE_PYTHON_OUTPUTS (irs, rk,
manifest, space-separated).
"""

import json
import os
import subprocess

from family import identity_check

ENV = {
    k: os.environ[k]
    for k in ("ROCKE_CPP_EMITTER", "ROCKE_FAMILY", "ROCKE_FLAVOR", "ROCKE_FAMILY_CASES", "ROCKE_BLESS_TARGET")
}
PY_IRS, PY_RK, PY_MANIFEST = os.environ["ROCKE_PYTHON_OUTPUTS"].split(" ")


def cpp_emit(out, *extra):
    argv = [
        ENV["ROCKE_CPP_EMITTER"],
        "--family",
        ENV["ROCKE_FAMILY"],
        "--flavor",
        ENV["ROCKE_FLAVOR"],
        "--cases",
        ENV["ROCKE_FAMILY_CASES"],
    ]
    argv += [
        "--irs",
        str(out / "irs.json"),
        "--rk",
        str(out / "rk.json"),
        "--manifest",
        str(out / "manifest"),
        "--bless-target",
        ENV["ROCKE_BLESS_TARGET"],
        *extra,
    ]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return [
        "--python-irs",
        PY_IRS,
        "--cpp-irs",
        str(out / "irs.json"),
        "--python-rk",
        PY_RK,
        "--cpp-rk",
        str(out / "rk.json"),
        "--python-manifest",
        PY_MANIFEST,
        "--cpp-manifest",
        str(out / "manifest"),
    ]


def test_one_perturbed_byte_fails_the_gate_naming_the_case(tmp_path, capsys):
    with open(ENV["ROCKE_FAMILY_CASES"], encoding="utf-8") as f:
        case_id = json.load(f)["cases"][-1]["id"]
    assert identity_check.main(cpp_emit(tmp_path, "--perturb-case", case_id)) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert first == f"FAIL: the Python and C++ engines differ on 1 case(s): {case_id} (.rk text)"
