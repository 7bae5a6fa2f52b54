"""set_printoptions / get_printoptions / printoptions: repr under NumPy's options, NumPy as the
oracle (Note [Print options] in strided/_format.py)."""

import numpy as np
import pytest

import strided

PREFIX = "tensor("

OPTION_SETS = [
    {},
    {"precision": 3},
    {"precision": 2, "suppress": True},
    {"threshold": 10, "edgeitems": 2},
    {"linewidth": 40},
    {"sign": "+"},
    {"sign": " ", "floatmode": "fixed", "precision": 4},
    {"nanstr": "NaN", "infstr": "Inf"},
    {"formatter": {"float_kind": lambda v: f"{v:.1f}"}},
]

ARRAYS = [
    np.array([1 / 3, -2.5, 1e-9, 12345.678]),
    np.arange(40.0).reshape(4, 10) / 7,
    np.arange(2000.0),
    np.array([np.nan, np.inf, -np.inf, 0.0]),
    np.array(3.14159),
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(o) or "defaults")
def test_repr_body_is_numpys_under_the_same_options(options):
    for a in ARRAYS:
        t = strided.asarray(a)
        with strided.printoptions(**options):
            got = repr(t)
        numpy_options = {"linewidth": 80, **options}
        with np.printoptions(**numpy_options):
            body = np.array2string(a, separator=", ", prefix=PREFIX)
        assert got == PREFIX + body + ")", (options, a.shape)


def test_one_line_repr_equals_numpys_repr_body():
    a = np.array([0.5, 1.25, -3.0])
    with strided.printoptions(precision=1, sign="+"), np.printoptions(precision=1, sign="+"):
        assert repr(strided.asarray(a))[len(PREFIX) :] == repr(a)[len("array(") :]


def test_defaults_and_get_returns_a_copy():
    opts = strided.get_printoptions()
    expected = dict(np.get_printoptions(), linewidth=80)
    assert opts == expected
    opts["precision"] = 1  # a copy: changing it changes nothing
    assert strided.get_printoptions()["precision"] == 8


def test_set_and_reset_leave_numpy_alone():
    old = strided.get_printoptions()
    try:
        strided.set_printoptions(precision=3, threshold=5)
        assert strided.get_printoptions()["precision"] == 3
        assert np.get_printoptions()["precision"] == 8  # strided's options are its own
        strided.set_printoptions(edgeitems=1)  # None keeps the others
        assert strided.get_printoptions()["precision"] == 3
        assert repr(strided.arange(10.0)) == "tensor([0., ..., 9.])"
    finally:
        strided.set_printoptions(**old)
    assert strided.get_printoptions() == old


def test_context_manager_restores_on_exception():
    before = strided.get_printoptions()
    with pytest.raises(RuntimeError, match="boom"):
        with strided.printoptions(precision=2) as opts:
            assert opts["precision"] == 2
            raise RuntimeError("boom")
    assert strided.get_printoptions() == before
    with strided.printoptions(precision=2):
        with strided.printoptions(suppress=True):
            assert strided.get_printoptions()["precision"] == 2
        assert strided.get_printoptions()["suppress"] is False


def test_bad_keys_and_values():
    with pytest.raises(TypeError, match="precison"):
        strided.set_printoptions(precison=3)
    with pytest.raises(TypeError, match="colour"):
        with strided.printoptions(colour="red"):
            pass
    before = strided.get_printoptions()
    with pytest.raises(ValueError, match="sign"):
        strided.set_printoptions(sign="x")
    with pytest.raises(ValueError):
        strided.set_printoptions(floatmode="nope")
    assert strided.get_printoptions() == before  # a refused call changes nothing


def test_suffixes_wrap_at_the_line_width_and_override_repr():
    t = strided.asarray([1.5, 2.5], dtype=strided.float32)
    assert repr(t) == "tensor([1.5, 2.5], dtype=strided.float32)"
    with strided.printoptions(linewidth=20):
        assert repr(t) == "tensor([1.5, 2.5],\n       dtype=strided.float32)"
    with strided.printoptions(override_repr=lambda x: f"<{x.shape}>"):
        assert repr(t) == "<(2,)>"
    assert repr(t).startswith("tensor(")  # override_repr resets, as in NumPy
