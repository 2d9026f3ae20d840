"""Edits of a loaded JSON data file, for the tests that break one entry on
purpose (flavor_facts_test, mma_forms_test): each returns a function that
changes a copy of the raw data in place."""


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
