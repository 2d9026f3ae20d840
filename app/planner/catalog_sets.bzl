"""@rocke_catalog_sets: the problem sets of the catalog, readable by macros.

A macro cannot read a file, yet rocke_catalog (app/planner/catalog.bzl)
needs each problem of a set to make its action. This repository rule reads
the sets' JSON files (each stays the one home of its problems, which `rocke build --problems` reads too) and
writes sets.bzl:

    SETS = {"catalog/resnet50.json": [entry, ...], ...}

The sets are _SETS below; add a problems file there to build it with
rocke_catalog.

Bazel watches the files it read: editing a set re-runs this rule.
"""

# Loaded only by MODULE.bazel, through the module extension below.
visibility("private")

def _catalog_sets_impl(rctx):
    sets = {}
    for label in rctx.attr.files:
        doc = json.decode(rctx.read(label))
        if type(doc) != "dict" or type(doc.get("problems")) != "list":
            fail('{}: expected a JSON object {{"problems": [entry, ...]}}'.format(label))
        key = label.package + "/" + label.name if label.package else label.name
        sets[key] = doc["problems"]
    rctx.file("sets.bzl", "SETS = json.decode({})\n".format(json.encode(json.encode(sets))))
    rctx.file("BUILD.bazel", "")

catalog_sets = repository_rule(
    implementation = _catalog_sets_impl,
    doc = "Writes sets.bzl: SETS maps each set's path in the main repository to its entries.",
    attrs = {"files": attr.label_list(allow_files = [".json"], mandatory = True)},
)

# The sets rocke_catalog may name: the networks' problem files, and the
# refusals a catalog records (app/planner:refusals_catalog_test).
_SETS = [
    "//catalog:bert_base.json",
    "//catalog:llama_attention.json",
    "//catalog:mobilenet_v2.json",
    "//catalog:resnet50.json",
    "//app/planner:testdata/refusals.json",
]

def _catalog_impl(_module_ctx):
    catalog_sets(name = "rocke_catalog_sets", files = _SETS)

# A module extension rather than use_repo_rule: Bazel loads an extension's
# .bzl only when one of its repositories is needed, so a checkout without
# app/ (tools/checks/platform_only.sh) resolves MODULE.bazel all the same.
catalog = module_extension(
    implementation = _catalog_impl,
    doc = "@rocke_catalog_sets, for rocke_catalog (app/planner/catalog.bzl).",
)
