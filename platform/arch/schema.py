"""Checks shared by the loaders of the JSON data files under platform/arch
(flavor facts, MMA forms): one wording for every entry they refuse,
"WHERE: expected X, got Y; fix the entry (schema in DOC)"."""


class Schema:
    """The checks, raising `error` and naming the schema document `doc`."""

    def __init__(self, error, doc):
        self.error = error
        self.doc = doc

    def check(self, cond, where, expected, got):
        if not cond:
            raise self.error(f"{where}: expected {expected}, got {got!r}; fix the entry (schema in {self.doc})")

    def keys(self, obj, keys, where):
        self.check(isinstance(obj, dict), where, "an object", obj)
        self.check(sorted(obj) == list(keys), where, f"exactly the keys {list(keys)}", sorted(obj))

    def int_in(self, x, lo, hi, where):
        self.check(
            isinstance(x, int) and not isinstance(x, bool) and lo <= x <= hi, where, f"an integer in [{lo}, {hi}]", x
        )

    def positive(self, x, where):
        self.check(isinstance(x, int) and not isinstance(x, bool) and x > 0, where, "a positive integer", x)

    def name(self, x, where):
        self.check(isinstance(x, str) and x != "", where, "a non-empty string", x)

    def choice(self, x, allowed, where):
        self.check(x in allowed, where, f"one of {list(allowed)}", x)

    def names(self, x, where):
        """A non-empty, sorted list of distinct names, as a tuple."""
        self.check(
            isinstance(x, list) and x and x == sorted(set(x)), where, "a non-empty sorted list without repeats", x
        )
        for n in x:
            self.name(n, where)
        return tuple(x)
