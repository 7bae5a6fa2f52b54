"""strided.save / strided.load: round trips, and files that must be refused without running."""

import io
import json
import os
import pickle
import struct

import numpy as np
import pytest

import strided
from strided import nn
from strided.serialization import MAGIC

DTYPES = [
    "bool",
    "int8",
    "uint16",
    "int32",
    "int64",
    "uint64",
    "float32",
    "float64",
    "complex64",
    "complex128",
]


def roundtrip(obj, tmp_path=None):
    if tmp_path is not None:
        path = tmp_path / "obj.strided"
        strided.save(obj, path)
        return strided.load(path)
    buf = io.BytesIO()
    strided.save(obj, buf)
    buf.seek(0)
    return strided.load(buf)


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes_and_shapes(rng, dtype):
    for shape in [(), (0,), (3,), (2, 0, 4), (2, 3, 4)]:
        a = rng.standard_normal(shape) * 10
        t = strided.asarray(a).astype(dtype)
        back = roundtrip(t)
        assert back.dtype == t.dtype and back.shape == t.shape
        np.testing.assert_array_equal(np.asarray(back), np.asarray(t))


def test_non_contiguous_views_load_contiguous(rng, tmp_path):
    base = strided.asarray(rng.standard_normal((4, 6)))
    views = {
        "T": base.T,
        "step": base[::2, 1::3],
        "neg": base[:, ::-1],
        "exp": base[0].expand(3, 6),
    }
    back = roundtrip(views, tmp_path)
    for k, v in views.items():
        assert back[k].is_contiguous()
        np.testing.assert_array_equal(np.asarray(back[k]), np.asarray(v))


def test_nested_containers_and_scalars():
    obj = {
        "a": [1, 2.5, None, True, "s", (strided.ones(2), float("inf"), float("nan"))],
        0: {"step": 3},
        "t": (),
        "l": [],
    }
    back = roundtrip(obj)
    assert set(back) == {"a", 0, "t", "l"} and back[0] == {"step": 3}
    assert back["a"][:5] == [1, 2.5, None, True, "s"]
    assert isinstance(back["a"][5], tuple) and back["a"][5][1] == float("inf")
    assert np.isnan(back["a"][5][2]) and back["t"] == () and back["l"] == []


def test_model_state_dict_round_trip(tmp_path):
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm1d(2), nn.Linear(3, 2))
    sd = model.state_dict()
    back = roundtrip(sd, tmp_path)
    assert list(back) == list(sd)
    fresh = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm1d(2), nn.Linear(3, 2))
    fresh.load_state_dict(back)
    for k, v in fresh.state_dict().items():
        np.testing.assert_array_equal(np.asarray(v), np.asarray(sd[k]))
    assert back["1.num_batches_tracked"].dtype == strided.int64


def test_requires_grad_is_kept():
    back = roundtrip({"w": strided.ones(2).requires_grad_(), "b": strided.ones(2)})
    assert back["w"].requires_grad and not back["b"].requires_grad


def test_unsavable_objects_are_refused_on_save():
    with pytest.raises(TypeError, match=r"cannot save a set at the top\['x'\]"):
        strided.save({"x": {1, 2}}, io.BytesIO())
    with pytest.raises(TypeError, match="keys must be str or int"):
        strided.save({(1, 2): 3}, io.BytesIO())


class _Payload:
    """Unpickling this would create the marker file: the code the attacker wants to run."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_malicious_pickle_is_refused_and_never_run(tmp_path):
    marker = tmp_path / "pwned"
    evil = tmp_path / "model.pt"
    evil.write_bytes(pickle.dumps({"weights": _Payload(marker)}))
    with pytest.raises(
        ValueError, match="starts like a Python pickle. strided.load never unpickles"
    ):
        strided.load(evil)
    assert not marker.exists()


def test_a_pickle_disguised_behind_our_magic_is_refused(tmp_path):
    marker = tmp_path / "pwned"
    payload = pickle.dumps(_Payload(marker))
    blob = MAGIC + struct.pack("<Q", len(payload)) + payload
    with pytest.raises(ValueError, match="its header is not JSON"):
        strided.load(io.BytesIO(blob))
    assert not marker.exists()


def _crafted(header, data=b""):
    h = json.dumps(header).encode()
    return io.BytesIO(MAGIC + struct.pack("<Q", len(h)) + h + data)


@pytest.mark.parametrize(
    "header,data,message",
    [
        (
            {
                "format": "strided",
                "version": 1,
                "tree": {"tensor": 0},
                "tensors": [{"dtype": "object", "shape": [1], "offset": 0, "nbytes": 8}],
            },
            b"\0" * 8,
            "unknown dtype 'object'",
        ),
        (
            {
                "format": "strided",
                "version": 1,
                "tree": {"tensor": 0},
                "tensors": [{"dtype": "float64", "shape": [10**12], "offset": 0, "nbytes": 8}],
            },
            b"\0" * 8,
            "needs 8000000000000 bytes, the header says 8",
        ),
        (
            {
                "format": "strided",
                "version": 1,
                "tree": {"tensor": 0},
                "tensors": [{"dtype": "float64", "shape": [4], "offset": 0, "nbytes": 32}],
            },
            b"\0" * 8,
            "the file is truncated",
        ),
        (
            {"format": "strided", "version": 1, "tree": {"tensor": 3}, "tensors": []},
            b"",
            "unknown entry",
        ),
        (
            {
                "format": "strided",
                "version": 1,
                "tree": {"__reduce__": ["os.system", "touch x"]},
                "tensors": [],
            },
            b"",
            "unknown entry",
        ),
        ({"format": "strided", "version": 2, "tree": None, "tensors": []}, b"", "format version 2"),
        ({"format": "other"}, b"", "does not say format 'strided'"),
    ],
)
def test_crafted_headers_are_refused(header, data, message):
    with pytest.raises(ValueError, match=message):
        strided.load(_crafted(header, data))


def test_other_formats_are_named():
    # zips and .npy files are read as NumPy's (tests/test_files.py); broken ones say so
    with pytest.raises(ValueError, match="corrupt or truncated zip"):
        strided.load(io.BytesIO(b"PK\x03\x04" + b"\0" * 40))
    with pytest.raises(ValueError, match=".npy file with a corrupt or truncated header"):
        strided.load(io.BytesIO(b"\x93NUMPY" + b"\0" * 40))
    with pytest.raises(ValueError, match="declares a"):
        strided.load(io.BytesIO(MAGIC + struct.pack("<Q", 10**6) + b"{}"))
