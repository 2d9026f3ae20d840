"""rocke_family: turns a kernel family into Bazel gates; rocke_family_group,
rocke_registry and rocke_registry_of generate the family registries from
those targets."""

load("@rules_python//python:defs.bzl", "py_binary", "py_library", "py_test")
load("//toolchains/llvm:flavors.bzl", "DEFAULT_LLVM_VERSION", "LLVM_VERSIONS")
load("//toolchains/python:defs.bzl", "py_pytest")
load(":run.bzl", "rocke_run")

ALL_FLAVORS = ["llvm" + v for v in LLVM_VERSIONS]

FamilyInfo = provider(
    doc = "One rocke_family, as its target states it.",
    fields = {
        "name": "the family's name (the rocke_family's name)",
        "module": "the import path of the Python module defining FAMILY",
        "cpp_library": "the label of its C++ mirror's cc_library, or empty (no C++ engine)",
    },
)

FamilyGroupInfo = provider(
    doc = "The rocke_family targets of one package (rocke_family_group).",
    fields = {"families": "list of FamilyInfo, in the order of their modules"},
)

def _golden_target(pkg, name, flavor):
    """The label of the family's golden test for `flavor` (bless builds what it names)."""
    return "//{}:{}_golden_{}".format(pkg, name, flavor)

def _output_flags(outs, golden_target):
    """An emitter's flags for one flavor's three files `outs` (irs, rk, manifest) and its golden's target."""
    irs, rk, manifest = outs
    return [
        "--irs",
        "$(execpath {})".format(irs),
        "--rk",
        "$(execpath {})".format(rk),
        "--manifest",
        "$(execpath {})".format(manifest),
        "--bless-target",
        golden_target,
    ]

def _emit_flavors(name, tool, family, flavors, cases, pkg, engine = ""):
    """One action (rocke_run) running the emitter `tool` over the case list
    `cases` for every flavor of `flavors` (one run builds each case once:
    platform/family/emit.py, rocke-emit), writing each flavor's
    _outs(name, F, engine). With engine "": NAME_emit (the Python emitter,
    `family` its module), and NAME_emit_F, a filegroup of flavor F's three
    files; with ".cpp": NAME_emit_cpp (the C++ engine, `family` its name)."""
    groups, outs = [], []
    for flavor in flavors:
        irs, rk, manifest = _outs(name, flavor, engine)
        outs += [irs, rk, manifest]
        groups += ["--flavor", flavor] + _output_flags((irs, rk, manifest), _golden_target(pkg, name, flavor))
        if not engine:
            native.filegroup(
                name = "{}_emit_{}".format(name, flavor),
                srcs = [irs, rk, manifest],
            )
    rocke_run(
        name = name + ("_emit_cpp" if engine else "_emit"),
        tool = tool,
        srcs = [cases],
        outs = outs,
        arguments = ["--family", family, "--cases", "$(execpath {})".format(cases)] + groups,
        mnemonic = "RockeEmitCpp" if engine else "RockeEmit",
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

def _byte_identity(name, flavor, py, family_tag):
    """NAME_byte_identity_F, over NAME_emit's and NAME_emit_cpp's files for F; returns the test's name."""
    cpp = _outs(name, flavor, ".cpp")
    test = "{}_byte_identity_{}".format(name, flavor)
    py_test(
        name = test,
        size = "small",
        srcs = ["//platform/family:identity_check.py"],
        main = "//platform/family:identity_check.py",
        args = _identity_args(py, cpp),
        data = list(py) + list(cpp),
        deps = ["//platform/family"],
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

def _objects_out(name, flavor):
    """The objects file NAME_objects_F writes."""
    return "{}.{}.objects.json".format(name, flavor)

def _objects(name, flavor, py):
    """NAME_objects_F: an action (rocke_run) building every emitted case with LLVM F; returns its output."""
    irs, manifest = py[0], py[2]
    out = _objects_out(name, flavor)
    toolchain = "@{}//:toolchain.json".format(flavor)
    rocke_run(
        name = "{}_objects_{}".format(name, flavor),
        tool = "//platform/family:build_objects",
        srcs = [irs, manifest, toolchain],
        outs = [out],
        arguments = [
            "--irs",
            "$(execpath {})".format(irs),
            "--manifest",
            "$(execpath {})".format(manifest),
            "--toolchain",
            "$(execpath {})".format(toolchain),
            "--out",
            "$(execpath {})".format(out),
        ],
        mnemonic = "RockeObjects",
    )
    return out

def _machine_inputs(name, flavor, py, checks):
    """What a machine gate of flavor F reads (never the family's module, so
    that an edit leaving these files' bytes alone leaves it cached): its data
    and env."""
    rk, manifest = py[1], py[2]
    objects = _objects_out(name, flavor)
    toolchain = "@{}//:toolchain.json".format(flavor)
    data = [checks, manifest, objects, rk, toolchain]
    env = {
        "ROCKE_FAMILY_CHECKS": "$(rootpath {})".format(checks),
        "ROCKE_FAMILY_MANIFEST": "$(rootpath {})".format(manifest),
        "ROCKE_FAMILY_OBJECTS": "$(rootpath {})".format(objects),
        "ROCKE_FAMILY_RK": "$(rootpath {})".format(rk),
        "ROCKE_LLVM": "$(rootpath {})".format(toolchain),
    }
    return data, env

_MACHINE_DEPS = [
    "//platform/family",
    "//platform/family:machine",
    "//platform/family:objects",
    "//platform/ir",
    "//toolchains/llvm",
]

def _machine_gate(name, flavor, py, checks, family_tag):
    """NAME_machine_F: the flavor's code objects run in the emulator; returns the test's name."""
    test = "{}_machine_{}".format(name, flavor)
    data, env = _machine_inputs(name, flavor, py, checks)
    py_pytest(
        name = test,
        size = "large",
        srcs = ["//platform/family:machine_test.py"],
        data = data,
        env = env,
        deps = _MACHINE_DEPS,
        tags = ["machine", "flavor=" + flavor, family_tag],
    )
    return test

def _machine_probe(name, flavor, py, checks, family_tag):
    """NAME_machine_can_fail; returns the test's name."""
    test = name + "_machine_can_fail"
    data, env = _machine_inputs(name, flavor, py, checks)
    py_pytest(
        name = test,
        size = "medium",
        srcs = ["//platform/family:machine_probe_test.py"],
        data = data,
        env = env,
        deps = _MACHINE_DEPS,
        tags = ["gate_probe", "machine", "flavor=" + flavor, family_tag],
    )
    return test

def _family_entry_impl(ctx):
    return [FamilyInfo(name = ctx.attr.family, module = ctx.attr.module, cpp_library = ctx.attr.cpp_library)]

# What rocke_family records of a family, for rocke_family_group and
# rocke_registry to generate from (and tools/checks/no_drop.sh to query).
# The C++ library is a string, not a label: the library itself depends on
# the names generated from this entry.
_family_entry = rule(
    implementation = _family_entry_impl,
    attrs = {
        "family": attr.string(mandatory = True),
        "module": attr.string(mandatory = True),
        "cpp_library": attr.string(),
        "py_deps": attr.string_list(),
    },
    provides = [FamilyInfo],
)

def rocke_family(name, module, deps, flavors = ALL_FLAVORS, cpp_engine = None, cpp_library = None, suite_tests = []):
    """Gates for one kernel family, as plain targets selectable by tag.

    The family is the Python module `module` (e.g. "conv.direct_fwd", found
    through `deps`), defining FAMILY = family.Family(...). Its goldens live in
    goldens/<this package>/, exported by //goldens/<this package>:goldens.

    Creates, flavor-free:
      name + "_emitter":  py_binary, the emit program with the family linked in.
      name + "_cases":    action -> NAME.cases.json, the case list as
                          canonical JSON ({"cases":[{"arch","id","spec"}],
                          "family","format"}; platform/ir/SPELLING.md), the
                          list both engines build from.
      name + "_emit":     action: the Python emitter over NAME.cases.json,
                          once for every flavor in `flavors` (each case
                          built once, lowered per flavor), writing each
                          flavor's three files below.
      name + "_checks":   action -> NAME.checks.json, every case's numeric
                          check (inputs, bounds, grid, workgroup size) as
                          data (platform/family/checks.py), which the
                          machine gates read instead of the module: an
                          edit that keeps these bytes keeps them cached.
      name + "_cases_json": test: that file is the canonical rendering, and
                          every case's spec reads back (its class's
                          from_json) equal. Tags: cases_json, family=NAME.
      name + "_numeric":  test: every case through the interpreter vs numpy.
                          Tags: numeric, family=NAME.
      name + "_family":   the family's entry (name, module, cpp_library), from
                          which rocke_family_group generates this package's
                          names and rocke_registry the registries.
      name + "_python":   py_library of `deps`, the family's Python alone
                          (rocke_registry_of links it).
      name:               test_suite of every test below and of
                          `suite_tests`, tagged manual (tags on a suite
                          would filter it).
    and for each flavor F in `flavors` (llvm20, llvm22, llvm23, llvm24):
      name + "_emit_" + F:     filegroup of NAME_emit's files for F:
                               NAME.F.irs.json (id -> LLVM IR),
                               NAME.F.rk.json (id -> .rk text of every built
                               kernel) and NAME.F.manifest (id, arch, kernel,
                               bytes, sha256, ir=kept on the representatives;
                               rejections with their error class).
      name + "_golden_" + F:   test: manifest and representative IR vs the
                               golden. Tags: golden, flavor=F, family=NAME.
      name + "_objects_" + F:  action: every emitted case built by LLVM F
                               (verify, compile, no indirect call, link
                               --no-undefined, resource figures) ->
                               NAME.F.objects.json (platform/family/objects.py),
                               one build both gates below read.
      name + "_validity_" + F: test: each case of NAME.F.objects.json built,
                               with no spill or register overrun. Tags:
                               ir_validity, flavor=F, family=NAME.
      name + "_machine_" + F:  test: each case on an arch the emulator runs
                               (platform/emu), its code object from
                               NAME.F.objects.json, launched on the numeric
                               gate's inputs (NAME.checks.json), against
                               numpy; a rejected case is
                               an expected rejection, a case on another arch is
                               listed, never passed (machine_test.py). Tags:
                               machine, flavor=F, family=NAME.
    and once, for the default flavor (else the first):
      name + "_machine_can_fail": test: a wait of a real code object of the
                               family turned into s_nop 0 fails the machine
                               check, naming the case (machine_probe_test.py).
                               Tags: gate_probe, machine, flavor=F, family=NAME.
    and when `cpp_engine` (an executable taking the same flags, with --family
    NAME, and writing the same three files) and `cpp_library` (the C++
    mirror, which the engine links through the registry's cpp_families) are given:
      name + "_emit_cpp":           action: the C++ engine over the same
                                    NAME.cases.json, once for every flavor
                                    (each case built once), writing
                                    NAME.F.cpp.irs.json, .rk.json and .manifest.
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

    This target is the one place the family's name is written: the module
    reads it as NAMES[__name__] from the package's generated family_names.py,
    its C++ mirror from family_names.h (rocke_family_group).

    Args:
      name: the family name.
      module: import path of the module defining FAMILY.
      deps: py_library targets providing `module`.
      flavors: the flavors to gate.
      cpp_engine: optional label of the C++ emitter.
      cpp_library: label of the C++ mirror's cc_library; given with
        cpp_engine, and only with it.
      suite_tests: labels of the family's other tests (made by the caller's
        macro), which the test_suite NAME runs too.
    """
    if bool(cpp_engine) != bool(cpp_library):
        fail("rocke_family {}: expected cpp_engine and cpp_library together or neither, got cpp_engine = {}, cpp_library = {}; give both (a C++ mirror) or neither (Python only)".format(name, cpp_engine, cpp_library))
    if not _identifier(name):
        fail("rocke_family: expected a name of letters, digits and _ (not starting with a digit), got {}; it names the family's targets, kernels and C++ constant".format(repr(name)))
    if len(module.split(".")) != 2 or not all([_identifier(part) for part in module.split(".")]):
        fail("rocke_family {}: expected module as PACKAGE.STEM (two identifiers, e.g. conv.direct_fwd), got {}; family_names.h names the family rocke::family_names::PACKAGE::STEM".format(name, repr(module)))
    pkg = native.package_name()
    _family_entry(
        name = name + "_family",
        family = name,
        module = module,
        cpp_library = str(native.package_relative_label(cpp_library)) if cpp_library else "",
        py_deps = [str(native.package_relative_label(d)) for d in deps],
    )

    # The family's Python alone, for a registry of chosen families (rocke_registry_of).
    py_library(
        name = name + "_python",
        deps = deps,
    )
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
    checks = name + ".checks.json"

    # The emitter's two files of the family's data: (target suffix, output, flag).
    for suffix, out, flag in [("_cases", cases, "--cases-json"), ("_checks", checks, "--checks")]:
        rocke_run(
            name = name + suffix,
            tool = ":" + name + "_emitter",
            outs = [out],
            arguments = ["--family", module, flag, "$(execpath {})".format(out)],
            mnemonic = "RockeFamilyData",
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
    _emit_flavors(name, ":" + name + "_emitter", module, flavors, cases, pkg)
    if cpp_engine:
        _emit_flavors(name, cpp_engine, name, flavors, cases, pkg, engine = ".cpp")
    for flavor in flavors:
        golden_target = _golden_target(pkg, name, flavor)
        py = _outs(name, flavor, "")
        irs, manifest = py[0], py[2]
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
        objects = _objects(name, flavor, py)
        py_pytest(
            name = "{}_validity_{}".format(name, flavor),
            size = "small",
            srcs = ["//platform/family:validity_test.py"],
            data = [irs, manifest, objects],
            env = {
                "ROCKE_FAMILY_IRS": "$(rootpath {})".format(irs),
                "ROCKE_FAMILY_MANIFEST": "$(rootpath {})".format(manifest),
                "ROCKE_FAMILY_OBJECTS": "$(rootpath {})".format(objects),
                "ROCKE_FLAVOR": flavor,
            },
            deps = [
                "//platform/family",
                "//platform/family:objects",
            ],
            tags = ["ir_validity", "flavor=" + flavor, family_tag],
        )
        tests += ["{}_golden_{}".format(name, flavor), "{}_validity_{}".format(name, flavor)]
        tests.append(_machine_gate(name, flavor, py, checks, family_tag))
        if cpp_engine:
            tests.append(_byte_identity(name, flavor, py, family_tag))
            if flavor == flavors[0]:
                tests.append(_gate_probe(name, cpp_engine, cases, flavor, py, golden_target, family_tag))
    probe_flavor = "llvm" + DEFAULT_LLVM_VERSION if "llvm" + DEFAULT_LLVM_VERSION in flavors else flavors[0]
    tests.append(_machine_probe(name, probe_flavor, _outs(name, probe_flavor, ""), checks, family_tag))
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
        tests = [":" + t for t in tests + [name + "_numeric"]] + suite_tests,
        tags = ["manual"],
    )

def _label(label):
    """`label` as BUILD files write it (//pkg:name)."""
    return "//{}:{}".format(label.package, label.name)

def _python_string(text):
    """`text` as a Python string literal (rocke_family holds names and modules to identifiers and dots)."""
    return '"' + text + '"'

def _identifier(text):
    """Whether `text` is a Python and C++ identifier (ASCII)."""
    return text != "" and not text[0].isdigit() and text.replace("_", "a").isalnum()

def _group_files_impl(ctx):
    families = sorted([e[FamilyInfo] for e in ctx.attr.entries], key = lambda f: f.module)
    source = "the rocke_family targets of {}/BUILD.bazel".format(ctx.label.package)
    py = [
        '"""Each family\'s name by its module: NAMES[__name__] in the module.',
        "",
        "Generated by {} from {}: edit those.".format(_label(ctx.label), source),
        '"""',
        "",
        "NAMES = {",
    ]
    py += ["    {}: {},".format(_python_string(f.module), _python_string(f.name)) for f in families]
    py += ["}"]
    ctx.actions.write(ctx.outputs.py, "\n".join(py) + "\n")
    namespaces = {}
    for f in families:
        package, _, stem = f.module.rpartition(".")
        namespaces.setdefault(package, []).append((stem, f.name))
    h = [
        "// Each family's name by its module's stem, for its C++ mirror.",
        "// Generated by {} from {}: edit those.".format(_label(ctx.label), source),
        "#pragma once",
        "",
    ]
    for package, names in sorted(namespaces.items()):
        h.append("namespace rocke::family_names::{} {{".format(package.replace(".", "::")))
        h += ['inline constexpr char {}[] = "{}";'.format(stem, name) for stem, name in names]
        h.append("}}  // namespace rocke::family_names::{}".format(package.replace(".", "::")))
    ctx.actions.write(ctx.outputs.h, "\n".join(h) + "\n")
    return [FamilyGroupInfo(families = families)]

_group_files = rule(
    implementation = _group_files_impl,
    attrs = {
        "entries": attr.label_list(providers = [FamilyInfo]),
        "py": attr.output(mandatory = True),
        "h": attr.output(mandatory = True),
    },
    provides = [FamilyGroupInfo],
)

def rocke_family_group():
    """What a package's rocke_family targets generate; call it after them.

    Finds the package's rocke_family targets and creates:
      family_names_files: family_names.py (NAMES: module -> family name) and
                          family_names.h (rocke::family_names::<package>::<stem>,
                          the name), from the families' entries.
      family_names:       py_library of family_names.py (`from PKG.family_names
                          import NAMES`; PKG is the package's last folder).
      family_names_cc:    cc_library of family_names.h.
      families:           py_library of every family's deps (the registry's).
      cpp_families:       cc_library of every family's cpp_library.
    rocke_registry lists the packages whose groups it reads.
    """
    entries = [r for r in native.existing_rules().values() if r["kind"] == "_family_entry"]
    if not entries:
        fail("rocke_family_group: expected rocke_family targets before it in {}, got none".format(native.package_name()))
    _group_files(
        name = "family_names_files",
        entries = [":" + r["name"] for r in entries],
        py = "family_names.py",
        h = "family_names.h",
    )
    py_library(
        name = "family_names",
        srcs = ["family_names.py"],
        imports = [".."],
    )
    native.cc_library(
        name = "family_names_cc",
        hdrs = ["family_names.h"],
    )
    py_library(
        name = "families",
        deps = sorted({d: None for r in entries for d in r["py_deps"]}.keys()),
    )
    native.cc_library(
        name = "cpp_families",
        deps = sorted({r["cpp_library"]: None for r in entries if r["cpp_library"]}.keys()),
    )

def _registry_files_impl(ctx):
    listed = [f for g in ctx.attr.groups for f in g[FamilyGroupInfo].families] + [e[FamilyInfo] for e in ctx.attr.entries]
    families = sorted(listed, key = lambda f: f.module)
    modules = [f.module for f in families]
    python_only = [f.module for f in families if not f.cpp_library]
    py = [
        '"""The family registry: {}.'.format(ctx.attr.summary),
        "",
        "Generated by {} from the rocke_family targets {}".format(_label(ctx.label), "of the packages it" if ctx.attr.groups else "it"),
        "lists: edit those. FAMILIES maps each family's module (its rocke_family's",
        "`module`) to its FAMILY, imported directly; PYTHON_ONLY lists the modules",
        "whose rocke_family has no cpp_library (no C++ engine, so no byte-identity",
        "gate).",
        '"""',
        "",
    ]
    py += ["import " + m for m in modules]
    py += ["", "FAMILIES = {"]
    py += ["    {}: {}.FAMILY,".format(_python_string(m), m) for m in modules]
    py += ["}", "", "PYTHON_ONLY = ({})".format("".join([_python_string(m) + ", " for m in python_only]).strip())]
    ctx.actions.write(ctx.outputs.py, "\n".join(py) + "\n")
    outputs = [ctx.outputs.py]
    if ctx.outputs.cpp_list:
        libraries = [Label(f.cpp_library).name for f in families if f.cpp_library]
        ctx.actions.write(ctx.outputs.cpp_list, "".join([n + "\n" for n in libraries]))
        outputs.append(ctx.outputs.cpp_list)
    return [DefaultInfo(files = depset(outputs))]

_registry_files = rule(
    implementation = _registry_files_impl,
    attrs = {
        "groups": attr.label_list(providers = [FamilyGroupInfo]),
        "entries": attr.label_list(providers = [FamilyInfo]),
        "summary": attr.string(mandatory = True, doc = "what the registry holds, for its docstring"),
        "py": attr.output(mandatory = True),
        "cpp_list": attr.output(),
    },
)

def rocke_registry(name, packages):
    """The family registries, generated from the rocke_family_group of each
    package in `packages` (labels of packages, such as "//PKG").

    Creates:
      name + "_files":  rocke_families.py (FAMILIES: module -> FAMILY, and
                        PYTHON_ONLY) and cpp_families.txt (the C++ family
                        libraries' names, one a line).
      name:             py_library of rocke_families.py (`import rocke_families`).
      cpp_families:     cc_library of every C++ family (each registers itself
                        when linked).

    Args:
      name: the py_library's name.
      packages: the packages holding rocke_family targets.
    """
    _registry_files(
        name = name + "_files",
        groups = [p + ":family_names_files" for p in packages],
        summary = "every family the rocke command line offers",
        py = "rocke_families.py",
        cpp_list = "cpp_families.txt",
    )
    py_library(
        name = name,
        srcs = ["rocke_families.py"],
        imports = ["."],
        deps = [p + ":families" for p in packages],
    )
    native.cc_library(
        name = "cpp_families",
        deps = [p + ":cpp_families" for p in packages],
    )

def rocke_registry_of(name, families, summary):
    """A registry of the families `families` alone, so that what depends on
    it re-runs only when one of them changes, not on an edit to any family.

    Creates:
      name + "_files":  NAME/rocke_families.py, as rocke_registry's
                        (FAMILIES and PYTHON_ONLY) of these families.
      name:             py_library of it (`import rocke_families`); a
                        target must not depend on this and on a
                        rocke_registry both.

    Args:
      name: the py_library's name.
      families: labels of rocke_family targets, as "//PKG:NAME".
      summary: what the registry holds, for its docstring.
    """
    labels = [native.package_relative_label(f) for f in families]
    _registry_files(
        name = name + "_files",
        entries = [label.same_package_label(label.name + "_family") for label in labels],
        summary = summary,
        py = name + "/rocke_families.py",
    )
    py_library(
        name = name,
        srcs = [name + "/rocke_families.py"],
        imports = [name],
        deps = [label.same_package_label(label.name + "_python") for label in labels],
    )
