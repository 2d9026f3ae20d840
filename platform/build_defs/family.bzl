"""rocke_family: turns a kernel family into Bazel gates."""

load("@rules_python//python:defs.bzl", "py_binary", "py_test")
load("//toolchains/llvm:flavors.bzl", "DEFAULT_LLVM_VERSION", "LLVM_VERSIONS")
load("//toolchains/python:defs.bzl", "py_pytest")

ALL_FLAVORS = ["llvm" + v for v in LLVM_VERSIONS]

def _emit(name, tool, family, flavor, cases, outs, golden_target):
    """A genrule running an emitter (Python or C++; both take these flags)
    over the case list `cases`; outs = (irs, rk, manifest)."""
    irs, rk, manifest = outs
    native.genrule(
        name = name,
        srcs = [cases],
        outs = [irs, rk, manifest],
        cmd = ("$(execpath {e}) --family {fam} --flavor {f} --cases $(execpath {c}) --irs $(execpath {i}) " +
               "--rk $(execpath {r}) --manifest $(execpath {m}) --bless-target {g}").format(
            e = tool,
            fam = family,
            f = flavor,
            c = cases,
            i = irs,
            r = rk,
            m = manifest,
            g = golden_target,
        ),
        tools = [tool],
    )

def _outs(name, flavor, engine):
    """The three files an emitter writes for one flavor: irs, rk, manifest."""
    stem = "{}.{}{}".format(name, flavor, engine)
    return (stem + ".irs.json", stem + ".rk.json", stem + ".manifest")

def _identity_args(py, cpp):
    """identity_check's flags for the Python outputs `py` and the C++ ones `cpp`."""
    return [
        "--python-irs=$(rootpath {})".format(py[0]),
        "--cpp-irs=$(rootpath {})".format(cpp[0]),
        "--python-rk=$(rootpath {})".format(py[1]),
        "--cpp-rk=$(rootpath {})".format(cpp[1]),
        "--python-manifest=$(rootpath {})".format(py[2]),
        "--cpp-manifest=$(rootpath {})".format(cpp[2]),
    ]

def _cpp_gates(name, cpp_engine, cases, flavor, py, golden_target, family_tag):
    """NAME_emit_cpp_F and NAME_byte_identity_F; returns the test's name."""
    cpp = _outs(name, flavor, ".cpp")
    _emit("{}_emit_cpp_{}".format(name, flavor), cpp_engine, name, flavor, cases, cpp, golden_target)
    test = "{}_byte_identity_{}".format(name, flavor)
    py_test(
        name = test,
        size = "small",
        srcs = ["//platform/family:identity_check.py"],
        main = "//platform/family:identity_check.py",
        args = _identity_args(py, cpp),
        data = list(py) + list(cpp),
        tags = ["byte_identity", "flavor=" + flavor, family_tag],
    )
    return test

def _gate_probe(name, cpp_engine, cases, flavor, py, golden_target, family_tag):
    """NAME_byte_identity_can_fail; returns the test's name."""
    test = name + "_byte_identity_can_fail"
    py_pytest(
        name = test,
        size = "small",
        srcs = ["//platform/family:identity_probe_test.py"],
        data = [cases, cpp_engine, "//platform/family:identity_check.py"] + list(py),
        env = {
            "ROCKE_CPP_EMITTER": "$(rootpath {})".format(cpp_engine),
            "ROCKE_FAMILY": name,
            "ROCKE_FLAVOR": flavor,
            "ROCKE_FAMILY_CASES": "$(rootpath {})".format(cases),
            "ROCKE_BLESS_TARGET": golden_target,
            "ROCKE_PYTHON_OUTPUTS": " ".join(["$(rootpath {})".format(f) for f in py]),
        },
        deps = ["//platform/family"],
        tags = ["gate_probe", family_tag],
    )
    return test

def _machine_gate(name, module, deps, flavor, py, family_tag):
    """NAME_machine_F: the flavor's code objects run in the emulator; returns the test's name."""
    irs, manifest = py[0], py[2]
    test = "{}_machine_{}".format(name, flavor)
    py_pytest(
        name = test,
        size = "large",
        srcs = ["//platform/family:machine_test.py"],
        data = [irs, manifest, "@{}//:toolchain.json".format(flavor)],
        env = {
            "ROCKE_FAMILY_MODULE": module,
            "ROCKE_FAMILY_IRS": "$(rootpath {})".format(irs),
            "ROCKE_FAMILY_MANIFEST": "$(rootpath {})".format(manifest),
            "ROCKE_LLVM": "$(rootpath @{}//:toolchain.json)".format(flavor),
        },
        deps = deps + [
            "//platform/family",
            "//platform/family:machine",
            "//toolchains/llvm",
        ],
        tags = ["machine", "flavor=" + flavor, family_tag],
    )
    return test

def _machine_probe(name, module, deps, flavor, family_tag):
    """NAME_machine_can_fail; returns the test's name."""
    test = name + "_machine_can_fail"
    py_pytest(
        name = test,
        size = "medium",
        srcs = ["//platform/family:machine_probe_test.py"],
        data = ["@{}//:toolchain.json".format(flavor)],
        env = {
            "ROCKE_FAMILY_MODULE": module,
            "ROCKE_LLVM": "$(rootpath @{}//:toolchain.json)".format(flavor),
        },
        deps = deps + [
            "//platform/family",
            "//platform/family:machine",
            "//platform/lower",
            "//toolchains/llvm",
        ],
        tags = ["gate_probe", "machine", "flavor=" + flavor, family_tag],
    )
    return test

def rocke_family(name, module, deps, flavors = ALL_FLAVORS, cpp_engine = None):
    """Gates for one kernel family, as plain targets selectable by tag.

    The family is the Python module `module` (e.g. "conv.direct_fwd", found
    through `deps`), defining FAMILY = family.Family(...). Its goldens live in
    goldens/<this package>/, exported by //goldens/<this package>:goldens.

    Creates, flavor-free:
      name + "_emitter":  py_binary, the emit program with the family linked in.
      name + "_cases":    genrule -> NAME.cases.json, the case list as
                          canonical JSON ({"cases":[{"arch","id","spec"}],
                          "family","format"}; platform/ir/SPELLING.md), the
                          list both engines build from.
      name + "_cases_json": test: that file is the canonical rendering, and
                          every case's spec reads back (its class's
                          from_json) equal. Tags: cases_json, family=NAME.
      name + "_numeric":  test: every case through the interpreter vs numpy.
                          Tags: numeric, family=NAME.
      name:               test_suite of every test below, tagged manual (tags
                          on a suite would filter it).
    and for each flavor F in `flavors` (llvm20, llvm22, llvm23, llvm24):
      name + "_emit_" + F:     genrule: the Python emitter over NAME.cases.json
                               -> NAME.F.irs.json (id -> LLVM IR),
                               NAME.F.rk.json (id -> .rk text of every built
                               kernel) and NAME.F.manifest (id, arch, kernel,
                               bytes, sha256, ir=kept on the representatives;
                               rejections with their error class).
      name + "_golden_" + F:   test: manifest and representative IR vs the
                               golden. Tags: golden, flavor=F, family=NAME.
      name + "_validity_" + F: test: verify, compile, link --no-undefined each
                               case with LLVM F, no indirect call, resource
                               figures. Tags: ir_validity, flavor=F, family=NAME.
      name + "_machine_" + F:  test: each case on an arch the emulator runs
                               (platform/emu), compiled and linked by LLVM F
                               from NAME.F.irs.json, launched on the numeric
                               gate's inputs, against numpy; a rejected case is
                               an expected rejection, a case on another arch is
                               listed, never passed (machine_test.py). Tags:
                               machine, flavor=F, family=NAME.
    and once, for the default flavor (else the first):
      name + "_machine_can_fail": test: a wait of a real code object of the
                               family turned into s_nop 0 fails the machine
                               check, naming the case (machine_probe_test.py).
                               Tags: gate_probe, machine, flavor=F, family=NAME.
    and when `cpp_engine` (an executable taking the same flags, with --family
    NAME, and writing the same three files) is given:
      name + "_emit_cpp_" + F:      genrule, the C++ engine's output from the
                                    same NAME.cases.json.
      name + "_byte_identity_" + F: test: per case the .rk text and the LLVM IR,
                                    then the manifests, byte-identical
                                    (identity_check.py). Tags: byte_identity,
                                    flavor=F, family=NAME.
      name + "_byte_identity_can_fail": test (once, for the first flavor): the
                                    C++ engine run with the test-only
                                    --perturb-case ID makes identity_check fail
                                    naming ID. Tags: gate_probe, family=NAME
                                    (not byte_identity: one byte_identity test
                                    per golden test).

    Args:
      name: the family name (what Family.name says).
      module: import path of the module defining FAMILY.
      deps: py_library targets providing `module`.
      flavors: the flavors to gate.
      cpp_engine: optional label of the C++ emitter.
    """
    pkg = native.package_name()
    family_tag = "family=" + name
    tests = []
    py_binary(
        name = name + "_emitter",
        srcs = ["//platform/family:emit.py"],
        main = "//platform/family:emit.py",
        deps = deps + [
            "//platform/family",
            "//platform/files",
            "//platform/ir",
            "//platform/lower",
        ],
    )
    cases = name + ".cases.json"
    native.genrule(
        name = name + "_cases",
        outs = [cases],
        cmd = "$(execpath :{e}) --family {fam} --cases-json $@".format(e = name + "_emitter", fam = module),
        tools = [":" + name + "_emitter"],
    )
    py_pytest(
        name = name + "_cases_json",
        size = "small",
        srcs = ["//platform/family:cases_roundtrip_test.py"],
        data = [cases],
        env = {
            "ROCKE_FAMILY_MODULE": module,
            "ROCKE_FAMILY_CASES": "$(rootpath {})".format(cases),
        },
        deps = deps + ["//platform/family"],
        tags = ["cases_json", family_tag],
    )
    tests.append(name + "_cases_json")
    for flavor in flavors:
        golden_target = "//{}:{}_golden_{}".format(pkg, name, flavor)
        py = _outs(name, flavor, "")
        irs, manifest = py[0], py[2]
        _emit("{}_emit_{}".format(name, flavor), ":" + name + "_emitter", module, flavor, cases, py, golden_target)
        golden = "goldens/{}/{}.{}".format(pkg, name, flavor)
        py_test(
            name = "{}_golden_{}".format(name, flavor),
            size = "small",
            srcs = ["//platform/family:golden_check.py"],
            main = "//platform/family:golden_check.py",
            args = [
                "--manifest=$(rootpath {})".format(manifest),
                "--irs=$(rootpath {})".format(irs),
                "--golden=" + golden + ".golden",
                "--golden-ir-dir=" + golden,
                "--bless-target=" + golden_target,
            ],
            data = [irs, manifest, "//goldens/{}:goldens".format(pkg)],
            deps = ["//platform/family"],
            tags = ["golden", "flavor=" + flavor, family_tag],
        )
        py_pytest(
            name = "{}_validity_{}".format(name, flavor),
            size = "medium",
            srcs = ["//platform/family:validity_test.py"],
            data = [irs, manifest, "@{}//:toolchain.json".format(flavor)],
            env = {
                "ROCKE_FAMILY_IRS": "$(rootpath {})".format(irs),
                "ROCKE_FAMILY_MANIFEST": "$(rootpath {})".format(manifest),
                "ROCKE_LLVM": "$(rootpath @{}//:toolchain.json)".format(flavor),
            },
            deps = [
                "//platform/family",
                "//toolchains/llvm",
            ],
            tags = ["ir_validity", "flavor=" + flavor, family_tag],
        )
        tests += ["{}_golden_{}".format(name, flavor), "{}_validity_{}".format(name, flavor)]
        tests.append(_machine_gate(name, module, deps, flavor, py, family_tag))
        if cpp_engine:
            tests.append(_cpp_gates(name, cpp_engine, cases, flavor, py, golden_target, family_tag))
            if flavor == flavors[0]:
                tests.append(_gate_probe(name, cpp_engine, cases, flavor, py, golden_target, family_tag))
    probe_flavor = "llvm" + DEFAULT_LLVM_VERSION if "llvm" + DEFAULT_LLVM_VERSION in flavors else flavors[0]
    tests.append(_machine_probe(name, module, deps, probe_flavor, family_tag))
    py_pytest(
        name = name + "_numeric",
        size = "medium",
        srcs = ["//platform/family:numeric_test.py"],
        env = {"ROCKE_FAMILY_MODULE": module},
        deps = deps + [
            "//platform/family",
            "//platform/interp",
        ],
        tags = ["numeric", family_tag],
    )
    native.test_suite(
        name = name,
        tests = [":" + t for t in tests + [name + "_numeric"]],
        tags = ["manual"],
    )
