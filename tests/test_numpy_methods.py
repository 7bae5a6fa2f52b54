"""NumPy's ndarray methods on ``strided.Tensor`` (the NumPy-first rule, DESIGN.md): every public
name of ``numpy.ndarray`` and every keyword of its signature, surveyed against the Tensor's, and
the methods that were missing or refused NumPy's keywords tested against NumPy on every layout:
``view(dtype)``, ``astype(order=, casting=)``, ``copy(order=)``, ``dot(out=)``,
``take(out=, mode=)``, ``partition``/``argpartition(kind=)``, ``choose``, ``compress``, ``put``,
``byteswap``, ``base``, ``flat``, ``flags``/``setflags``, ``dump``/``dumps``/``tofile``.

``KNOWN_MISSING`` and ``KNOWN_KEYWORDS`` list what strided still leaves out, each with its
reason; ``test_survey_of_ndarray_methods`` fails when one is fixed (or a new gap appears), so the
lists stay true.
"""

from __future__ import annotations

import inspect
import io
import pickle

import numpy as np
import pytest
from layouts import layouts

import strided

# NumPy's public ndarray names strided has no attribute for, and why
KNOWN_MISSING = {
    "ctypes": "NumPy's ctypes helper object; a CPU tensor's address is data_ptr()",
    "data": "NumPy's buffer object; memoryview(t) and the buffer protocol give the bytes",
    "getfield": "structured and sub-field dtypes; strided's dtypes are scalars (view(dtype) "
    "reads bytes as another dtype)",
    "setfield": "see getfield",
    "resize": "in-place resize replaces the storage under every view, which strided's "
    "Storage (shared, fixed-size, version-counted) does not do; strided.resize(a, shape) "
    "returns the resized copy",
}

# NumPy's special methods strided.Tensor has not, and why
KNOWN_DUNDERS = {
    "__array_finalize__": "NumPy's subclass hook; a Tensor is not an ndarray subclass",
    "__array_wrap__": "NumPy's subclass hook (see __array_finalize__)",
    "__array_interface__": "the buffer protocol, __array__ and __dlpack__ share a CPU tensor's "
    "memory with NumPy; NumPy's older interface dicts are not needed for it",
    "__array_struct__": "see __array_interface__",
    "__delitem__": "NumPy's only raises (elements cannot be deleted); without it Python raises",
    "__setstate__": "a tensor pickles through __reduce__ (its own state, any device)",
}

# (method, NumPy keyword) pairs the Tensor's method does not take, and why
_UFUNC_KEYWORDS = (
    "strided's ufuncs take out= (a same_kind cast) but not NumPy's ufunc keywords casting=, "
    "order=, dtype=, subok=, where=, which a.clip passes on to np.clip"
)
KNOWN_KEYWORDS = {
    ("clip", "casting"): _UFUNC_KEYWORDS,
    ("clip", "order"): _UFUNC_KEYWORDS,
    ("clip", "dtype"): _UFUNC_KEYWORDS,
    ("clip", "subok"): _UFUNC_KEYWORDS,
    ("clip", "where"): _UFUNC_KEYWORDS,
    ("view", "type"): "an ndarray subclass to view as; every strided tensor is a Tensor",
}

# NumPy keywords that ndarray's signatures hide behind **kwargs or *args
HIDDEN_KEYWORDS = {
    "clip": ("casting", "order", "dtype", "subok", "where"),
    "view": ("dtype", "type"),
}

# Methods whose keywords tests/test_reduction_keywords.py checks by calling them (their Tensor
# methods read NumPy's and PyTorch's arguments by hand: Note [Reduction methods: NumPy's
# positions, PyTorch's keywords] in strided/_tensor.py), and properties
OPAQUE = {"all", "any", "argmax", "argmin", "max", "min", "mean", "prod", "std", "sum", "var"}


def _numpy_keywords(name):
    """The keyword names of ``numpy.ndarray.<name>`` (none for a property or an opaque one)."""
    try:
        sig = inspect.signature(getattr(np.ndarray, name))
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    names = [p.name for p in sig.parameters.values() if p.kind in kinds and p.name != "self"]
    return names + list(HIDDEN_KEYWORDS.get(name, ()))


def _survey():
    """(missing names, {(method, keyword)} gaps) of strided.Tensor against numpy.ndarray."""
    missing, gaps = set(), set()
    for name in dir(np.ndarray):
        if name.startswith("_"):
            continue
        if not hasattr(strided.Tensor, name):
            missing.add(name)
            continue
        mine = getattr(strided.Tensor, name)
        if name in OPAQUE or not callable(mine):
            continue
        params = inspect.signature(mine).parameters
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            continue
        for kw in _numpy_keywords(name):
            if kw not in params or params[kw].kind is inspect.Parameter.POSITIONAL_ONLY:
                gaps.add((name, kw))
    return missing, gaps


def test_survey_of_ndarray_methods():
    dunders = {n for n in dir(np.ndarray) if n.startswith("__") and not hasattr(strided.Tensor, n)}
    assert dunders == set(KNOWN_DUNDERS), dunders ^ set(KNOWN_DUNDERS)
    missing, gaps = _survey()
    assert missing == set(KNOWN_MISSING), (
        f"newly missing: {sorted(missing - set(KNOWN_MISSING))}; "
        f"fixed (remove from KNOWN_MISSING): {sorted(set(KNOWN_MISSING) - missing)}"
    )
    assert gaps == set(KNOWN_KEYWORDS), (
        f"new keyword gaps: {sorted(gaps - set(KNOWN_KEYWORDS))}; "
        f"fixed (remove from KNOWN_KEYWORDS): {sorted(set(KNOWN_KEYWORDS) - gaps)}"
    )


def _same(got, want, where):
    g = np.asarray(got)
    assert g.shape == np.shape(want) and g.dtype == np.asarray(want).dtype, where
    np.testing.assert_array_equal(g, want, err_msg=where)


def _pairs(shape, dtype, rng):
    ref = (rng.standard_normal(shape) * 10).astype(dtype)
    if np.dtype(dtype).kind == "c":
        ref = ref + 1j * rng.standard_normal(shape).astype(dtype)
    for layout, t, a in layouts(ref, rng):
        yield layout, t, np.asarray(a)


VIEW_FROM = ("float64", "float32", "int16", "uint8", "complex64", "bool")
VIEW_TO = ("int64", "int32", "uint8", "float32", "complex128", "int16", "bool")


@pytest.mark.parametrize("src", VIEW_FROM)
def test_view_dtype_reads_the_bytes_as_numpy(src, rng):
    # Note [A view as another dtype]: NumPy's rules; a stride or offset that the new itemsize
    # does not divide (NumPy's unaligned views) is refused, naming it
    for layout, t, a in _pairs((3, 4), src, rng):
        for dst in VIEW_TO:
            where = f"{src} -> {dst} {layout} {a.shape} {a.strides}"
            try:
                want = a.view(dst)
            except ValueError:
                with pytest.raises(ValueError, match="view: "):
                    t.view(dst)
                continue
            try:
                got = t.view(dst)
            except ValueError as e:
                assert "bytes into its storage" in str(e) or "stride of" in str(e), where
                continue
            assert got.base is (t if t.base is None else t.base), f"a view's base {where}"
            assert got.strides == want.strides or not want.size, where
            if dst == "bool":  # the bytes compared, not bool's reading of them
                want, got = want.view(np.uint8), got.view("uint8")
            _same(got, want, where)
    t = strided.arange(4.0)
    for spelling in (np.int64, strided.int64, "int64", np.dtype("int64")):
        _same(t.view(spelling), np.arange(4.0).view(np.int64), f"view({spelling!r})")
    _same(t.view(dtype=strided.int32), np.arange(4.0).view(np.int32), "view(dtype=)")
    v = t.view(strided.int64)
    v[1] = 0  # a view: the write shows through
    assert t[1].item() == 0.0
    with pytest.raises(ValueError, match="0-d tensor"):
        strided.asarray(1.0).view(strided.int32)
    with pytest.raises(ValueError, match="last axis must be contiguous"):
        strided.ones((3, 4)).T.view(strided.int32)
    with pytest.raises(ValueError, match="not a whole number of complex128"):
        strided.ones(3).view(strided.complex128)
    with pytest.raises(RuntimeError, match="not differentiable"):
        strided.ones(3).requires_grad_().view(strided.int64)
    with strided.no_grad():
        assert strided.ones(3).requires_grad_().view(strided.int64).shape == (3,)


@pytest.mark.parametrize("dtype", ("float64", "int32", "complex64", "bool"))
@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
def test_astype_and_copy_lay_out_as_numpy(dtype, rng):
    # Note [A copy's order]: the strides of NumPy's copy for every order
    for layout, t, a in _pairs((2, 3, 4), dtype, rng):
        for order in "CFAK":
            where = f"{dtype} {layout} {order}"
            for got, want in [
                (t.astype("float32", order=order), a.astype("float32", order=order)),
                (t.astype(dtype, order, "no"), a.astype(dtype, order, "no")),
                (t.copy(order), a.copy(order)),
                (t.copy(order=order), a.copy(order=order)),
            ]:
                _same(got, want, where)
                if want.size:
                    dims = [d for d in range(want.ndim) if want.shape[d] > 1]
                    gs, ws = np.asarray(got).strides, want.strides
                    assert [gs[d] for d in dims] == [ws[d] for d in dims], where
        same = t.astype(dtype, copy=False)
        assert same is t, layout
        assert t.astype(dtype, order="C", copy=False) is t or not t.is_contiguous(), layout
        assert t.astype(dtype, copy=True) is not t
    with pytest.raises(ValueError, match="order must be one of"):
        strided.ones(3).copy(order="X")


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
def test_astype_casting_refuses_as_numpy():
    names = ("bool", "int8", "uint16", "int64", "float32", "float64", "complex64")
    for src in names:
        for dst in names:
            for casting in ("no", "equiv", "safe", "same_kind", "unsafe"):
                t, a = strided.ones(2, dtype=src), np.ones(2, dtype=src)
                if np.can_cast(a.dtype, dst, casting):
                    _same(t.astype(dst, casting=casting), a.astype(dst, casting=casting), dst)
                else:
                    with pytest.raises(TypeError, match=f"casting='{casting}'"):
                        t.astype(dst, casting=casting)
    with pytest.raises(ValueError, match="casting must be one of"):
        strided.ones(2).astype("int32", casting="loose")


@pytest.mark.parametrize("dtype", ("float64", "int64", "complex128"))
def test_take_dot_partition_keywords_as_numpy(dtype, rng):
    for layout, t, a in _pairs((3, 4), dtype, rng):
        where = f"{dtype} {layout} {a.shape}"
        if a.size:
            idx = [0, -1, 5, 13, -20]
            for mode in ("wrap", "clip"):
                _same(t.take(idx, mode=mode), a.take(idx, mode=mode), f"take {mode} {where}")
                if a.ndim == 2:
                    got, want = t.take(idx, 1, mode=mode), a.take(idx, 1, mode=mode)
                    _same(got, want, f"take axis {mode} {where}")
            out, nout = strided.empty(2, dtype=dtype), np.empty(2, dtype=dtype)
            assert t.take([0, -1], out=out) is out
            _same(out, a.take([0, -1], out=nout), f"take out= {where}")
            with pytest.raises(IndexError):
                t.take([a.size])
        if a.ndim == 2:
            b = a.T.copy()
            out, nout = strided.empty((a.shape[0],) * 2, dtype=dtype), np.empty_like(a @ b)
            assert t.dot(strided.asarray(b), out=out) is out
            np.testing.assert_allclose(np.asarray(out), a.dot(b, out=nout), err_msg=where)
        if a.ndim >= 1 and a.shape[-1] > 2 and dtype != "complex128":
            s, b = t.clone(), a.copy()
            s.partition(2, kind="introselect")
            b.partition(2, kind="introselect")
            np.testing.assert_array_equal(np.asarray(s)[..., 2], b[..., 2], err_msg=where)
            got = np.take_along_axis(a, np.asarray(t.argpartition(1, kind="introselect")), -1)
            np.testing.assert_array_equal(got[..., 1], np.partition(a, 1)[..., 1], where)
    with pytest.raises(ValueError, match="mode must be"):
        strided.ones(3).take([0], mode="nearest")


@pytest.mark.parametrize("dtype", ("float64", "int32", "bool"))
def test_choose_compress_put_as_numpy(dtype, rng):
    for layout, t, a in _pairs((3, 4), dtype, rng):
        where = f"{dtype} {layout} {a.shape}"
        sel = (np.arange(a.size).reshape(a.shape) % 2) if a.size else np.zeros(a.shape, int)
        choices = [a, np.zeros_like(a)]
        got = strided.asarray(sel).choose([t, strided.zeros_like(t)])
        _same(got, sel.choose(choices), f"choose {where}")
        if a.ndim == 2:
            cond = [True, False, True][: a.shape[0]]
            _same(t.compress(cond, axis=0), a.compress(cond, axis=0), f"compress {where}")
        cond = [False, True] if a.size >= 2 else [True][: a.size]
        _same(t.compress(cond), a.compress(cond), f"compress flat {where}")
        if a.size and layout != "expanded":
            s, b = t.clone(), a.copy()
            assert s.put([0, -1], [1, 0]) is None
            b.put([0, -1], [1, 0])
            _same(s, b, f"put {where}")


@pytest.mark.parametrize(
    "dtype", ("float64", "float32", "int16", "uint32", "complex64", "complex128", "int8")
)
def test_byteswap_as_numpy(dtype, rng):
    for layout, t, a in _pairs((3, 4), dtype, rng):
        where = f"{dtype} {layout}"
        got, want = t.byteswap(), a.byteswap()
        assert got.shape == want.shape and got.dtype.name == want.dtype.name, where
        assert np.asarray(got).tobytes() == want.tobytes(), where  # bits, NaNs included
        if layout != "expanded":
            s = t.clone()
            assert s.byteswap(inplace=True) is s
            assert np.asarray(s).tobytes() == want.tobytes(), f"in place {where}"
            assert np.asarray(s.byteswap()).tobytes() == a.tobytes(), f"twice {where}"


def test_base_pickles_searchsorted(tmp_path):
    t = strided.arange(6.0)
    assert t.base is None and t[1:].base is t and t[1:][::2].base is t
    assert t.reshape(2, 3).T.base is t
    _same(pickle.loads(t.dumps()), np.arange(6.0), "dumps")
    t.dump(tmp_path / "t.pkl")
    with open(tmp_path / "t.pkl", "rb") as f:
        _same(pickle.load(f), np.arange(6.0), "dump to a path")
    buf = io.BytesIO()
    t.dump(buf)
    _same(pickle.loads(buf.getvalue()), np.arange(6.0), "dump to a file object")
    t.reshape(2, 3).T.tofile(tmp_path / "t.bin")
    np.arange(6.0).reshape(2, 3).T.tofile(tmp_path / "n.bin")
    assert (tmp_path / "t.bin").read_bytes() == (tmp_path / "n.bin").read_bytes()
    t.tofile(tmp_path / "t.txt", sep=",", format="%.1f")
    assert (tmp_path / "t.txt").read_text() == "0.0,1.0,2.0,3.0,4.0,5.0"
    with pytest.raises(ValueError, match=r"the tensor searched \(self\) must be 1-D"):
        t.reshape(2, 3).searchsorted(1.0)
    with pytest.raises(ValueError):
        np.arange(6.0).reshape(2, 3).searchsorted(1.0)


@pytest.mark.parametrize("dtype", ("float64", "int16", "complex64"))
def test_flat_and_flags_as_numpy(dtype, rng):
    # Note [Flat positions] in strided/_flat.py
    for layout, t, a in _pairs((3, 4), dtype, rng):
        where = f"{dtype} {layout} {a.shape}"
        assert len(t.flat) == len(a.flat), where
        _same(np.asarray(t.flat), np.asarray(a.flat), f"flat {where}")
        _same(t.flat.copy(), a.flat.copy(), f"flat.copy {where}")
        assert [complex(x) for x in t.flat] == [complex(x) for x in a.flat], where
        for index in (slice(1, None, 3), [0, -1], a.size // 2) if a.size else (slice(None),):
            _same(t.flat[index], a.flat[index], f"flat[{index}] {where}")
        for key in ("C_CONTIGUOUS", "F_CONTIGUOUS", "C", "F", "FNC", "FORC", "CARRAY", "FARRAY"):
            assert t.flags[key] == a.flags[key], f"flags[{key!r}] {where}"
        assert t.flags.c_contiguous == a.flags.c_contiguous, where
        assert t.flags.f_contiguous == a.flags.f_contiguous, where
        assert t.flags.aligned and not t.flags.writebackifcopy
        if layout == "expanded" or not a.size:
            continue
        s, b = t.clone(), a.copy()
        s.T.flat[[0, -1]] = 5  # the write lands in s, in the transposed order
        b.T.flat[[0, -1]] = 5
        _same(s, b, f"flat[list] = {where}")
        s.flat[1::2] = [1, 2]  # values repeated cyclically
        b.flat[1::2] = [1, 2]
        _same(s, b, f"flat[slice] = {where}")
        s.flat = 3
        b.flat = 3
        _same(s, b, f"flat = {where}")
    t = strided.arange(6.0)
    assert t.flags.owndata and t.flags.writeable and not t[1:].flags.owndata
    t.setflags(write=True, align=True)
    with pytest.raises(ValueError, match="always writeable"):
        t.setflags(write=False)
    with pytest.raises(ValueError, match="always writeable"):
        t.flags.writeable = False
    with pytest.raises(KeyError, match="unknown flag"):
        t.flags["Q"]


@pytest.mark.parametrize("dtype", ("float32", "int64", "bool", "complex64", "complex128"))
def test_real_and_imag_read_and_set_as_numpy(dtype, rng):
    # a real tensor's imag is zeros of its dtype (NumPy's; PyTorch raises); a.real = v and
    # a.imag = v write the parts, and a real tensor has no imaginary part to set
    for layout, t, a in _pairs((3, 4), dtype, rng):
        where = f"{dtype} {layout}"
        _same(t.real, a.real, f"real {where}")
        _same(t.imag, a.imag, f"imag {where}")
        if layout == "expanded":
            continue
        s, b = t.clone(), a.copy()
        s.real = 2
        b.real = 2
        _same(s, b, f"real = {where}")
        if a.dtype.kind == "c":
            v = np.arange(a.shape[-1]) if a.ndim else 5
            s.imag = strided.asarray(v)
            b.imag = v
            _same(s, b, f"imag = {where}")
        else:
            with pytest.raises(TypeError, match="no imaginary part to set"):
                s.imag = 1
            with pytest.raises(TypeError):
                b.imag = 1


@pytest.mark.parametrize("dtype", ("float64", "int32", "bool"))
def test_contains_as_numpy(dtype, rng):
    for layout, t, a in _pairs((3, 4), dtype, rng):
        for value in (a.flat[0] if a.size else 0, 1000, a.ravel()[:1].tolist()):
            assert (value in t) == (value in a), f"{value!r} in {dtype} {layout}"
        if a.ndim == 2 and a.size:
            assert (a[1].tolist() in t) == (a[1].tolist() in a), f"a row {layout}"
    assert strided.Tensor[int] is not None  # annotations, as numpy.ndarray[...]
