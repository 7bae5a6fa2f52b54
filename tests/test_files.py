"""NumPy's files: .npy/.npz through save/load/savez, text through loadtxt/savetxt/genfromtxt.

NumPy is the oracle both ways: what strided writes, numpy.load reads (with the same bytes as
numpy.save of the same array), and what numpy writes, strided.load reads. Also: the two spellings
of save (Note [Two saves]), memory-mapped loading, refusals, atomic writes.
"""

import io
import os

import numpy as np
import pytest
from layouts import ALL_DTYPES, layouts, make_values, to_numpy_dtype

import strided
from strided import serialization


def _npy_bytes(writer, arr):
    buf = io.BytesIO()
    writer(buf, arr)
    return buf.getvalue()


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_npy_round_trip_every_dtype_and_layout(dtype):
    rng = np.random.default_rng(0)
    ref = make_values((3, 4), dtype, rng)
    for name, t, a in layouts(ref, rng):
        written = _npy_bytes(strided.save, t)
        # numpy.save of the array with the same layout writes the same bytes, header included
        assert written == _npy_bytes(np.save, a), name
        back = np.load(io.BytesIO(written))
        assert back.dtype == to_numpy_dtype(dtype) and back.shape == a.shape, name
        np.testing.assert_array_equal(back, a)
        # and strided reads numpy's file
        loaded = strided.load(io.BytesIO(_npy_bytes(np.save, a)))
        assert loaded.dtype == dtype and loaded.shape == a.shape, name
        np.testing.assert_array_equal(np.asarray(loaded), a)


def test_npy_paths_extension_and_fortran_order(tmp_path):
    x = strided.arange(6.0).reshape(2, 3)
    strided.save(tmp_path / "a", x.T)  # NumPy's order; .npy is added as numpy.save adds it
    assert os.listdir(tmp_path) == ["a.npy"]
    t = strided.load(str(tmp_path / "a.npy"))
    assert t.stride() == (1, 3)  # a Fortran-order file loads as the transposed view, no copy
    np.testing.assert_array_equal(np.asarray(t), np.arange(6.0).reshape(2, 3).T)
    big_endian = np.arange(4, dtype=">i4")
    np.save(tmp_path / "be.npy", big_endian)
    loaded = strided.load(tmp_path / "be.npy")
    assert loaded.dtype == strided.int32 and loaded.tolist() == [0, 1, 2, 3]


def test_save_keeps_pytorchs_order(tmp_path):
    sd = {"w": strided.ones((2, 2)), "step": 3}
    strided.save(sd, tmp_path / "ck")  # PyTorch's order: strided's own format, no extension
    assert os.listdir(tmp_path) == ["ck"]
    back = strided.load(tmp_path / "ck")
    assert back["step"] == 3 and back["w"].tolist() == [[1.0, 1.0], [1.0, 1.0]]
    buf = io.BytesIO()
    strided.save(obj=sd, f=buf)
    assert buf.getvalue().startswith(serialization.MAGIC)
    buf = io.BytesIO()
    strided.save(file=buf, arr=strided.arange(2))
    assert buf.getvalue().startswith(b"\x93NUMPY")
    with pytest.raises(TypeError, match="not a mix"):
        strided.save(buf, obj=sd)
    with pytest.raises(TypeError, match="neither argument is a path"):
        strided.save(strided.ones(1), strided.ones(1))
    with pytest.raises(TypeError, match="a dict is not an array"):
        strided.save(buf, sd)


def test_npz_both_ways(tmp_path):
    a = strided.arange(6, dtype=strided.int16).reshape(2, 3)[:, ::-1]
    b = strided.asarray([1 + 2j, 3j], dtype=strided.complex64)
    strided.savez(tmp_path / "z", a, b=b)
    strided.savez_compressed(tmp_path / "c.npz", a, b=b)
    for name in ("z.npz", "c.npz"):
        with np.load(tmp_path / name) as npz:
            np.testing.assert_array_equal(npz["arr_0"], np.asarray(a))
            np.testing.assert_array_equal(npz["b"], np.asarray(b))
        with strided.load(tmp_path / name) as npz:
            assert sorted(npz) == ["arr_0", "b"] and len(npz) == 2 and "b" in npz
            assert npz["b"].dtype == strided.complex64
            assert npz["arr_0"].tolist() == a.tolist()
            with pytest.raises(KeyError, match="'nope' is not in"):
                npz["nope"]
    np.savez(tmp_path / "n.npz", x=np.eye(2, dtype=np.float32), y=np.array(True))
    npz = strided.load(tmp_path / "n.npz")
    assert npz["x"].dtype == strided.float32 and npz["y"].ndim == 0 and npz["y"].item() is True
    npz.close()


def test_zero_d_and_empty():
    for t in (strided.asarray(2.5), strided.zeros((0, 3), dtype=strided.int8)):
        buf = io.BytesIO(_npy_bytes(strided.save, t))
        back = strided.load(buf)
        assert back.shape == t.shape and back.dtype == t.dtype
        assert _npy_bytes(strided.save, t) == _npy_bytes(np.save, np.asarray(t))


def test_mmap_mode_views_the_file(tmp_path):
    path = tmp_path / "m.npy"
    np.save(path, np.arange(5.0))
    ro = strided.load(path, mmap_mode="r")
    assert ro.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    with pytest.raises(ValueError, match="read-only"):
        ro[0] = 9.0
    rw = strided.load(path, mmap_mode="r+")
    rw[1] = 7.0  # writes through to the file
    del rw
    assert np.load(path)[1] == 7.0
    cow = strided.load(path, mmap_mode="c")
    cow[2] = -1.0  # copy-on-write: the file is unchanged
    assert cow[2].item() == -1.0 and np.load(path)[2] == 2.0


def test_refusals(tmp_path):
    np.save(tmp_path / "o.npy", np.array([1, None], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="dtype object.*never loads"):
        strided.load(tmp_path / "o.npy", allow_pickle=True)
    np.save(tmp_path / "h.npy", np.ones(2, dtype=np.dtype("U3")))
    with pytest.raises(TypeError, match="dtype <U3, which strided does not have"):
        strided.load(tmp_path / "h.npy")
    with pytest.raises(ValueError, match="dtype object"):
        strided.save(tmp_path / "x.npy", np.array([None]))
    data = _npy_bytes(np.save, np.arange(6.0))
    (tmp_path / "t.npy").write_bytes(data[:-8])
    with pytest.raises(ValueError, match=r"truncated or corrupt .npy.*shape \(6,\)"):
        strided.load(tmp_path / "t.npy")
    with pytest.raises(ValueError, match="truncated or corrupt .npy"):
        strided.load(io.BytesIO(data[:-8]))
    with pytest.raises(ValueError, match="truncated or corrupt .npy"):
        strided.load(tmp_path / "t.npy", mmap_mode="r")
    with pytest.raises(ValueError, match="corrupt or truncated header"):
        strided.load(io.BytesIO(data[:20]))
    with pytest.raises(ValueError, match="looks like text.*loadtxt"):
        strided.load(io.BytesIO(b"1 2 3\n"))
    with pytest.raises(ValueError, match="Python pickle"):
        strided.load(io.BytesIO(b"\x80\x04\x95 and so on"))
    with pytest.raises(ValueError, match="is empty"):
        strided.load(io.BytesIO(b""))
    with pytest.raises(ValueError, match="strided's own format"):
        buf = io.BytesIO()
        strided.save(strided.ones(1), buf)
        buf.seek(0)
        strided.load(buf, mmap_mode="r")


def test_atomic_writes_leave_nothing_behind(tmp_path, monkeypatch):
    target = tmp_path / "a.npy"
    strided.save(target, strided.arange(3))
    good = target.read_bytes()

    def failing_write_array(*args, **kwargs):
        kwargs.get("fp", args[0]).write(b"\x93NUMPY half")
        raise OSError("disk full")

    monkeypatch.setattr(np.lib.format, "write_array", failing_write_array)
    with pytest.raises(OSError, match="disk full"):
        strided.save(target, strided.arange(5))
    with pytest.raises(OSError, match="disk full"):
        strided.save(tmp_path / "new.npy", strided.arange(5))
    monkeypatch.undo()
    assert target.read_bytes() == good  # the old file intact
    assert sorted(os.listdir(tmp_path)) == ["a.npy"]  # no new file, no temporary left over
    with pytest.raises(TypeError):  # a bad array in savez: nothing written at all
        strided.savez(tmp_path / "z.npz", strided.ones(1), bad={"a": 1})
    assert sorted(os.listdir(tmp_path)) == ["a.npy"]


def test_text_files(tmp_path):
    x = strided.arange(6.0).reshape(2, 3).T
    strided.savetxt(tmp_path / "x.txt", x)
    np.testing.assert_array_equal(np.loadtxt(tmp_path / "x.txt"), np.asarray(x))
    back = strided.loadtxt(tmp_path / "x.txt")
    assert isinstance(back, strided.Tensor) and back.tolist() == x.tolist()
    cols = strided.loadtxt(tmp_path / "x.txt", unpack=True, dtype=strided.float32)
    assert cols.dtype == strided.float32 and cols.shape == (2, 3)
    strided.savetxt(tmp_path / "x.gz", x)  # the .gz name survives the atomic write
    assert np.loadtxt(tmp_path / "x.gz").shape == (3, 2)
    g = strided.genfromtxt(io.StringIO("1,2\n3,"), delimiter=",")
    np.testing.assert_array_equal(
        np.asarray(g), np.genfromtxt(io.StringIO("1,2\n3,"), delimiter=",")
    )
    with pytest.raises(TypeError, match="masked array"):
        strided.genfromtxt(io.StringIO("1,2\n3,"), delimiter=",", usemask=True)
    with pytest.raises(TypeError, match="structured array"):
        strided.genfromtxt(io.StringIO("a,b\n1,2"), delimiter=",", names=True)
