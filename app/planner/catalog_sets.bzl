"""@rocke_catalog_sets: the problem sets of the catalog, readable by macros.

A macro cannot read a file, yet rocke_catalog (app/planner/catalog.bzl)
needs each problem of a set to make its action. This repository rule reads
the sets' JSON files (each stays the one home of its problems, which `rocke build --problems` reads too) and
writes sets.bzl:

    SETS = {"catalog/resnet50.json": [entry, ...], ...}

Bazel watches the files it read: editing a set re-runs this rule.
"""

# Loaded only by MODULE.bazel.
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
