"""``strided.__array_namespace_info__()`` (strided/_info.py): each answer is checked against what
strided actually does (Note [What the inspection namespace promises]), NumPy as the oracle for
the values."""

from __future__ import annotations

import numpy as np
import pytest
from layouts import make_layout

import strided

INFO = strided.__array_namespace_info__()


def test_boolean_indexing_is_supported_as_claimed(rng):
    assert INFO.capabilities()["boolean indexing"] is True
    ref = rng.integers(-5, 5, (3, 4))
    for layout in ("contiguous", "transposed", "negative-stride", "0-d", "empty"):
        t, a = make_layout(layout, ref, rng)
        np.testing.assert_array_equal(np.asarray(t[t > 0]), a[a > 0], err_msg=layout)
        t[t > 0] = 7
        a[a > 0] = 7
        np.testing.assert_array_equal(np.asarray(t), a, err_msg=layout)


def test_data_dependent_shapes_are_supported_as_claimed():
    assert INFO.capabilities()["data-dependent shapes"] is True
    a = np.array([[3, 0, 3], [0, 1, 1]])
    t = strided.asarray(a)
    for got, want in zip(strided.nonzero(t), np.nonzero(a), strict=True):
        np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(np.asarray(strided.unique_values(t)), np.unique(a))
    counts = strided.asarray([2, 0, 1])
    np.testing.assert_array_equal(
        np.asarray(strided.repeat(t[0], counts)), np.repeat(a[0], [2, 0, 1])
    )


def test_max_dimensions_is_the_limit():
    limit = INFO.capabilities()["max dimensions"]
    assert limit == np.zeros((1,) * 64).ndim == 64  # NumPy's limit too
    assert strided.zeros((1,) * limit).ndim == limit
    with pytest.raises(ValueError, match=f"at most {limit} dims"):
        strided.zeros((1,) * (limit + 1))


def test_devices_are_a_tuple_that_holds_the_default():
    devices = INFO.devices()
    assert isinstance(devices, tuple)  # 2025.12; 2024.12 said a list
    assert devices[0] == INFO.default_device() == strided.zeros(1).device == "cpu"
    assert len(devices) == 1 + strided.cuda.device_count()
    for d in devices:  # each one a valid device= argument
        assert strided.zeros(1, device=d).device == d


def test_dtypes_for_a_device():
    for d in (None, "cpu", *INFO.devices()):
        assert INFO.dtypes(device=d) == INFO.dtypes()
        assert INFO.default_dtypes(device=d)["indexing"] is strided.int64
    assert set(INFO.dtypes(kind=("bool", "complex floating"))) == {
        "bool",
        "complex64",
        "complex128",
    }
    for f in (INFO.dtypes, INFO.default_dtypes):
        with pytest.raises(ValueError, match="unknown device 'tpu'"):
            f(device="tpu")
