"""rocke_family: turns a kernel family into Bazel gates."""

load("@rules_python//python:defs.bzl", "py_binary", "py_test")
load("//toolchains/llvm:flavors.bzl", "LLVM_VERSIONS")
load("//toolchains/python:defs.bzl", "py_pytest")

ALL_FLAVORS = ["llvm" + v for v in LLVM_VERSIONS]

def _emit(name, tool, family, flavor, irs, manifest, golden_target):
    """A genrule running an emitter (Python or C++; both take these flags)."""
    native.genrule(
        name = name,
        outs = [irs, manifest],
        cmd = "$(execpath {e}) --family {fam} --flavor {f} --irs $(execpath {i}) --manifest $(execpath {m}) --bless-target {g}".format(
            e = tool,
            fam = family,
            f = flavor,
            i = irs,
            m = manifest,
            g = golden_target,
        ),
        tools = [tool],
    )

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
      name + "_emit_" + F:     genrule -> NAME.F.irs.json (id -> IR) and
                               NAME.F.manifest (id, arch, kernel, bytes, sha256,
                               ir=kept on the representatives; rejections with
                               their error class).
      name + "_golden_" + F:   test: manifest and representative IR vs the
                               golden. Tags: golden, flavor=F, family=NAME.
      name + "_validity_" + F: test: verify, compile, link --no-undefined each
                               case with LLVM F, no indirect call, resource
                               figures. Tags: ir_validity, flavor=F, family=NAME.
    and when `cpp_engine` (an executable emitting the same two files) is given:
      name + "_emit_cpp_" + F:      genrule, the C++ engine's output.
      name + "_byte_identity_" + F: test: Python and C++ outputs byte-identical.
                                    Tags: byte_identity, flavor=F, family=NAME.

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
        irs, manifest = "{}.{}.irs.json".format(name, flavor), "{}.{}.manifest".format(name, flavor)
        _emit("{}_emit_{}".format(name, flavor), ":" + name + "_emitter", module, flavor, irs, manifest, golden_target)
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
        if cpp_engine:
            cpp_irs, cpp_manifest = "{}.{}.cpp.irs.json".format(name, flavor), "{}.{}.cpp.manifest".format(name, flavor)
            _emit("{}_emit_cpp_{}".format(name, flavor), cpp_engine, name, flavor, cpp_irs, cpp_manifest, golden_target)
            py_test(
                name = "{}_byte_identity_{}".format(name, flavor),
                size = "small",
                srcs = ["//platform/family:identity_check.py"],
                main = "//platform/family:identity_check.py",
                args = [
                    "--python-irs=$(rootpath {})".format(irs),
                    "--cpp-irs=$(rootpath {})".format(cpp_irs),
                    "--python-manifest=$(rootpath {})".format(manifest),
                    "--cpp-manifest=$(rootpath {})".format(cpp_manifest),
                ],
                data = [irs, manifest, cpp_irs, cpp_manifest],
                tags = ["byte_identity", "flavor=" + flavor, family_tag],
            )
            tests.append("{}_byte_identity_{}".format(name, flavor))
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
