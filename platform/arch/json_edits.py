"""Edits of a loaded JSON data file, for the tests that break one entry on
purpose (flavor_facts_test, mma_forms_test, ir/ops_schema_test): each returns a function that
changes a copy of the raw data in place."""

import copy
import json


def _parent(raw, path):
    node = raw
    for key in path[:-1]:
        node = node[key]
    return node


def set_at(path, value):
    """raw[path...] = value."""

    def edit(raw):
        _parent(raw, path)[path[-1]] = value

    return edit


def delete_at(path):
    """del raw[path...]."""

    def edit(raw):
        del _parent(raw, path)[path[-1]]

    return edit


def canonical(raw):
    """The canonical text of a data file under platform/ (sorted keys, 2-space
    indent, one trailing newline): every loader's file must read exactly so."""
    return json.dumps(raw, sort_keys=True, indent=2) + "\n"


def write_edited(raw, edit, path):
    """A deep copy of `raw`, changed by `edit`, written canonically to `path`;
    returns the copy."""
    changed = copy.deepcopy(raw)
    edit(changed)
    path.write_text(canonical(changed))
    return changed
