"""rocke_catalog: a kernel catalog as Bazel targets, one action per kernel."""

load("@rules_python//python:defs.bzl", "py_binary")
load("@rocke_catalog_sets//:sets.bzl", "SETS")
load("//platform/build_defs:family.bzl", "rocke_registry_of")
load("//toolchains/llvm:flavors.bzl", "DEFAULT_LLVM_VERSION", "LLVM_VERSIONS")
load("//toolchains/python:defs.bzl", "py_pytest")

# The top floor's: loaded only by the application's packages.
visibility(["//app/..."])

_KernelInfo = provider(
    doc = "One problem of a catalog on one arch.",
    fields = {"folder": "File (a folder): rows.json and the code objects at the rows' paths"},
)

def _kernel_impl(ctx):
    toolchain = ctx.file.toolchain

    # A folder, not fixed files: how many kernels a problem needs (a split
    # conv adds its reduce) is the planner's choice, made when the action runs.
    folder = ctx.actions.declare_directory(ctx.label.name)
    args = ctx.actions.args()
    args.add("--entry", ctx.attr.entry)
    args.add("--index", str(ctx.attr.index))
    args.add("--arch", ctx.attr.arch)
    args.add("--toolchain", toolchain)
    args.add("--out", folder.path)
    ctx.actions.run(
        executable = ctx.executable.tool,
        arguments = [args],
        inputs = [toolchain],
        outputs = [folder],
        mnemonic = "RockeKernel",
        progress_message = "rocke kernel %{label}",
    )
    return [
        DefaultInfo(files = depset([folder])),
        _KernelInfo(folder = folder),
    ]

_kernel = rule(
    implementation = _kernel_impl,
    doc = "One problem on one arch: a folder of its code objects and index rows (rows.json).",
    attrs = {
        "entry": attr.string(mandatory = True, doc = "the problem, as JSON"),
        "index": attr.int(mandatory = True, doc = "its index in the set"),
        "arch": attr.string(mandatory = True),
        "toolchain": attr.label(mandatory = True, allow_single_file = [".json"], doc = "the flavor's toolchain.json"),
        "tool": attr.label(mandatory = True, executable = True, cfg = "target", doc = "kernel_main with the catalog's families"),
    },
)

def _archive_impl(ctx):
    folders = [kernel[_KernelInfo].folder for kernel in ctx.attr.kernels]
    args = ctx.actions.args()
    args.add("--out", ctx.outputs.tar)
    args.add("--index", ctx.outputs.index)
    args.add_joined("--archs", ctx.attr.archs, join_with = ",")
    args.add_all(folders, expand_directories = False)
    ctx.actions.run(
        executable = ctx.executable._tool,
        arguments = [args],
        inputs = folders,
        outputs = [ctx.outputs.tar, ctx.outputs.index],
        mnemonic = "RockeCatalog",
        progress_message = "rocke catalog %{label}",
    )
    return [DefaultInfo(files = depset([ctx.outputs.tar, ctx.outputs.index]))]

_archive = rule(
    implementation = _archive_impl,
    doc = "The catalog's tar (index.json, index.csv, ARCH/NAME.hsaco) and its index.json.",
    attrs = {
        "kernels": attr.label_list(mandatory = True, providers = [_KernelInfo]),
        "archs": attr.string_list(mandatory = True, doc = "the catalog's archs (an entry refused on all alike is one error)"),
        "tar": attr.output(mandatory = True),
        "index": attr.output(mandatory = True),
        "_tool": attr.label(default = "//app/planner:archive_main", executable = True, cfg = "target"),
    },
)

def rocke_catalog(name, problems, archs, families, flavor = "llvm" + DEFAULT_LLVM_VERSION, verify_workgroups = 0):
    """The kernels of a problem set for some archs, one Bazel action each.

    `problems` is the label of a JSON problems file (as `rocke build
    --problems` reads), listed in @rocke_catalog_sets (app/planner/catalog_sets.bzl), which
    lets this macro see its entries. Each action gets its entry as an
    argument, not the file, so editing one problem reruns only its actions.

    The catalog's actions and its test link the families it names, not the
    whole registry, so that an edit to another family leaves them cached.

    Creates:
      name + "_families": the registry of `families` (rocke_registry_of).
      name + "_kernel_main": kernel_main.py (//app/planner:kernel_main) as a
          program with that registry. An action whose plan takes a family outside it fails,
          naming the family and this list.
      name + "_NNN_ARCH" for each entry NNN (its index, 3 digits) and arch:
          the folder NAME_NNN_ARCH/ of its kernels: rows.json (its index
          rows) and ARCH/NAME.hsaco (plus ARCH/NAME.reduce.hsaco for a
          split conv); built by NAME_kernel_main with the
          flavor's toolchain.json as its one input besides the tool. An
          entry that is bad or that no family builds on the arch does not
          fail the action: rows.json records the refusal.
      name: the catalog: NAME.tar (index.json, index.csv, ARCH/NAME.hsaco,
          as `rocke build --out` lays them out) and NAME.index.json, whose
          "errors" list the refusals and duplicate names as `rocke build`
          lists them.
      name + "_verify_test", when `verify_workgroups` is set: `rocke
          verify` on the tar, every distinct code object run in the
          emulator on that many output tiles of its problem against numpy
          (app/cli/catalog_verify_test.py); tagged machine.

    Args:
      name: the catalog's name.
      problems: the problems file, e.g. "//catalog:resnet50.json".
      archs: target archs, e.g. ["gfx942", "gfx950"].
      families: the families the planner takes for these problems, as
          rocke_family labels (e.g. "//library/gemm:gemm").
      flavor: the LLVM flavor, e.g. "llvm22"; the toolchains' default if none.
      verify_workgroups: output tiles per kernel for name + "_verify_test";
          0 (the default) makes no such test.
    """
    flavors = ["llvm" + v for v in LLVM_VERSIONS]
    if flavor not in flavors:
        fail("rocke_catalog {}: expected a flavor of {}, got {}".format(name, ", ".join(flavors), repr(flavor)))
    label = native.package_relative_label(problems)
    key = label.package + "/" + label.name
    if key not in SETS:
        fail("rocke_catalog {}: {} is not a set of @rocke_catalog_sets; add {} to _SETS in app/planner/catalog_sets.bzl".format(
            name,
            key,
            label,
        ))
    registry = name + "_families"
    rocke_registry_of(
        name = registry,
        families = families,
        summary = "the families of rocke_catalog {}, which the planner takes for {}".format(name, problems),
    )
    tool = name + "_kernel_main"
    py_binary(
        name = tool,
        srcs = ["//app/planner:kernel_main.py"],
        main = "//app/planner:kernel_main.py",
        deps = [
            ":" + registry,
            "//app/planner:kernel_main",
        ],
    )
    kernels = []
    for index, entry in enumerate(SETS[key]):
        for arch in archs:
            stem = "{}_{}".format(_pad(index), arch)
            _kernel(
                name = "{}_{}".format(name, stem),
                entry = json.encode(entry),
                index = index,
                arch = arch,
                toolchain = "@{}//:toolchain.json".format(flavor),
                tool = ":" + tool,
            )
            kernels.append(":{}_{}".format(name, stem))
    _archive(
        name = name,
        kernels = kernels,
        archs = archs,
        tar = name + ".tar",
        index = name + ".index.json",
    )
    if verify_workgroups:
        py_pytest(
            name = name + "_verify_test",
            size = "large",
            srcs = ["//app/cli:catalog_verify_test.py"],
            data = [":{}.tar".format(name)],
            env = {
                "ROCKE_CATALOG": "$(rootpath :{}.tar)".format(name),
                "ROCKE_WORKGROUPS": str(verify_workgroups),
            },
            tags = ["machine"],
            deps = [
                "//app/cli:command_line",
                "//app/cli:verify_cmd",
                ":" + registry,
            ],
        )

def _pad(index):
    """index as 3 digits (Starlark has no format widths)."""
    return ("00" + str(index))[-3:] if index < 1000 else str(index)
