"""The one shape of an error a caller causes with a bad value.

The message is for people: what was received, what is allowed, how to fix
it. The same facts are data for code: `field` (what the value is for:
"ConvSpec.groups", "flavor"), `value` (what was received) and `allowed`
(the allowed values where they are a list or a limit, else None), each as
JSON-shaped data (tuples as lists). The C++ engine raises the same class
with the same three attributes (platform/errors/cpp), so the engines' parity
tests compare the class, the field and the values, and each engine words its
own message.
"""


def data(value):
    """`value` as JSON-shaped data: tuples and lists as lists, dicts' values too, recursively."""
    if isinstance(value, tuple | list):
        return [data(v) for v in value]
    if isinstance(value, dict):
        return {k: data(v) for k, v in value.items()}
    return value


class FieldError(ValueError):
    """A value a field does not allow; the module doc says what each attribute holds."""

    def __init__(self, message, field, value, allowed=None):
        super().__init__(message)
        self.field = field
        self.value = data(value)
        self.allowed = data(allowed)

    def __reduce__(self):
        # Worker processes send errors back pickled: keep the facts, not only the message.
        return type(self), (str(self), self.field, self.value, self.allowed)

    def facts(self):
        """[class name, field, value, allowed]: what the engines' parity tests compare."""
        return [type(self).__name__, self.field, self.value, self.allowed]


def check_parity(error, refusal, where):
    """AssertionError unless `refusal`, a C++ engine's answer [facts,
    message], has the facts of Python's `error` (a FieldError), and each
    engine's message is one line naming the field. `where` names the case."""
    assert refusal is not None, f"{where}: Python refuses ({error}), C++ accepts"
    facts, message = refusal
    assert facts == data(error.facts()), f"{where}: the facts differ\n  python: {error.facts()}\n  c++:    {facts}"
    for engine, text in (("python", str(error)), ("c++", message)):
        assert "\n" not in text and str(error.field) in text, (
            f"{where}: {engine}'s message is not one line naming {error.field}: {text}"
        )
