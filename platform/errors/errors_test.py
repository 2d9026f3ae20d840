"""FieldError keeps its facts as data (tuples as lists), through pickling
too (worker processes send errors back pickled), and subclasses keep them."""

import pickle

from errors.errors import FieldError, data


class _Sub(FieldError):
    pass


def test_facts_are_data_with_tuples_as_lists():
    e = _Sub("S.f: expected ints >= 1, got (0, 1)", "S.f", (0, (1, 2)), {"max": (3,)})
    assert str(e) == "S.f: expected ints >= 1, got (0, 1)"
    assert e.facts() == ["_Sub", "S.f", [0, [1, 2]], {"max": [3]}]
    assert isinstance(e, ValueError)


def test_pickling_keeps_class_message_and_facts():
    e = _Sub("S.f: expected one of a, b, got 'c'", "S.f", "c", ["a", "b"])
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is _Sub
    assert str(back) == str(e)
    assert back.facts() == e.facts()


def test_data_leaves_scalars_alone():
    assert data(None) is None
    assert data(True) is True
    assert data(2**70) == 2**70
    assert data("x") == "x"
