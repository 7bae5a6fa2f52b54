"""The namespace functions where NumPy and PyTorch give one call two meanings (issue 15; the
table is docs/numpy-and-pytorch.md): NumPy's call gives NumPy's result, NumPy as the oracle, on
contiguous, transposed and negative-stride inputs; PyTorch's spelling (its keywords ``dim=``,
``dim0=``/``dim1=``, or a call NumPy refuses) gives PyTorch's, torch as the oracle where it is
installed. Then NumPy's ``pad`` over its modes, dtypes, layouts and edge cases, and PyTorch's
``F.pad`` beside it. The Tensor-method collisions are tested in test_numpy_spellings.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from layouts import make_layout

import strided
from strided.autograd import gradcheck
from strided.nn import functional as F

LAYOUTS = ("contiguous", "transposed", "negative-stride")


def _inputs(ref):
    """(layout, tensor, array) for the layouts above: the same values in the same strides."""
    for name in LAYOUTS:
        pair = make_layout(name, ref, np.random.default_rng(1))
        if pair is not None:
            yield name, pair[0], np.asarray(pair[1])


def _same(got, want, where):
    """Same container (a NumPy list stays a list, a tuple a tuple), shapes, dtypes, values."""
    if isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want), f"{where}: {type(got)}"
        for g, w in zip(got, want, strict=True):
            _same(g, w, where)
        return
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape and g.dtype == w.dtype, f"{where}: {g.shape} {g.dtype}, {w.dtype}"
    np.testing.assert_allclose(g, w, rtol=1e-12, atol=0, equal_nan=True, err_msg=where)


def _mask(shape):
    return np.arange(np.prod(shape)).reshape(shape) % 5 != 1  # no all-False line


# Each case is called as case(xp, x) with xp NumPy (x an ndarray) or strided (x a tensor of the
# same values and strides); ``xp.asarray`` turns host values into the module's arrays. A (4, 6)
# input: every value distinct (no ties for the sorts), both axes split evenly.
NUMPY_CALLS = {
    # transpose: NumPy's axes, not PyTorch's swap (Note [Two transposes])
    "transpose()": lambda xp, x: xp.transpose(x),
    "transpose(axes)": lambda xp, x: xp.transpose(x, (1, 0)),
    "transpose(axes=)": lambda xp, x: xp.transpose(x, axes=[1, 0]),
    # split: sections and indices, not PyTorch's sizes (Note [Two splits])
    "split(3)": lambda xp, x: xp.split(x, 2),
    "split(3, 1)": lambda xp, x: xp.split(x, 3, 1),
    "split([1, 3])": lambda xp, x: xp.split(x, [1, 3]),
    # sort: axis=None flattens; the axis by position; kind= checked and accepted
    "sort(None)": lambda xp, x: xp.sort(x, None),
    "sort(0)": lambda xp, x: xp.sort(x, 0),
    "sort(kind)": lambda xp, x: xp.sort(x, kind="stable"),
    "argsort(kind)": lambda xp, x: xp.argsort(x, kind="stable"),
    "argsort(0, 'mergesort')": lambda xp, x: xp.argsort(x, 0, "mergesort"),
    "argsort(axis=None)": lambda xp, x: xp.argsort(x, axis=None, kind="quicksort"),
    # reductions: NumPy's positions, where= and initial= (Note [NumPy's positions])
    "sum(0)": lambda xp, x: xp.sum(x, 0),
    "sum(0, float32)": lambda xp, x: xp.sum(x, 0, xp.float32),
    "sum(where)": lambda xp, x: xp.sum(x, where=xp.asarray(_mask(x.shape))),
    "sum(1, initial)": lambda xp, x: xp.sum(x, 1, initial=5.0),
    "prod(where)": lambda xp, x: xp.prod(x, 1, where=xp.asarray(_mask(x.shape))),
    "mean(1)": lambda xp, x: xp.mean(x, 1),
    "mean(where)": lambda xp, x: xp.mean(x, 0, where=xp.asarray(_mask(x.shape))),
    "max(1)": lambda xp, x: xp.max(x, 1),
    "max(where, initial)": lambda xp, x: xp.max(
        x, 0, where=xp.asarray(_mask(x.shape)), initial=-10.0
    ),
    "min(None, None, True)": lambda xp, x: xp.min(x, None, None, True),
    "min(initial)": lambda xp, x: xp.min(x, initial=-100.0),
    "any(where)": lambda xp, x: xp.any(x > 1, 1, where=xp.asarray(_mask(x.shape))),
    "all(where)": lambda xp, x: xp.all(x > -1, where=xp.asarray(_mask(x.shape))),
    "argmax(1)": lambda xp, x: xp.argmax(x, 1),
    "count_nonzero(0)": lambda xp, x: xp.count_nonzero(x > 0, 0),
    # std/var: ddof 0, NumPy's positions (torch.std(x, 1) divides by n - 1)
    "std()": lambda xp, x: xp.std(x),
    "var(1)": lambda xp, x: xp.var(x, 1),
    "std(0, None, None, 1)": lambda xp, x: xp.std(x, 0, None, None, 1),
    "var(where)": lambda xp, x: xp.var(x, 1, where=xp.asarray(_mask(x.shape))),
    # median averages the two middle values (torch takes the lower one)
    "median()": lambda xp, x: xp.median(x),
    "median(0)": lambda xp, x: xp.median(x, 0),
    # no axis: flatten (cumsum, roll) or every axis (flip)
    "cumsum()": lambda xp, x: xp.cumsum(x),
    "cumprod()": lambda xp, x: xp.cumprod(x / 2),
    "flip()": lambda xp, x: xp.flip(x),
    "roll(5)": lambda xp, x: xp.roll(x, 5),
    "roll(1, 0)": lambda xp, x: xp.roll(x, 1, 0),
    # where(cond) is nonzero's tuple
    "where(cond)": lambda xp, x: xp.where(x > 0),
    "nonzero": lambda xp, x: xp.nonzero(x > 0),
    # positional arguments the Array API makes keywords
    "tril(x, 1)": lambda xp, x: xp.tril(x, 1),
    "triu(x, -1)": lambda xp, x: xp.triu(x, -1),
    "repeat(2)": lambda xp, x: xp.repeat(x, 2),
    "repeat(2, 1)": lambda xp, x: xp.repeat(x, 2, 1),
    "take(flat)": lambda xp, x: xp.take(x, [0, 7, -1]),
    "take(i, 1)": lambda xp, x: xp.take(x, [5, 0], 1),
    "take_along_axis": lambda xp, x: xp.take_along_axis(x, xp.argsort(x, 1), 1),
    "stack(1)": lambda xp, x: xp.stack([x, x], 1),
    "concat(1)": lambda xp, x: xp.concat([x, x], 1),
    "searchsorted(right)": lambda xp, x: xp.searchsorted(xp.sort(x, None), x[0], "right"),
    "tensordot(1)": lambda xp, x: xp.tensordot(x, x.T, 1),
    "diagonal(axis1=)": lambda xp, x: xp.diagonal(x, 1, axis1=1, axis2=0),
    "trace(1)": lambda xp, x: xp.trace(x, 1),
    "clip(a_min=)": lambda xp, x: xp.clip(x, a_min=-0.5, a_max=0.5),
    "round(1)": lambda xp, x: xp.round(x, 1),
    "unique": lambda xp, x: xp.unique(xp.round(x)),
    "histogram(3)": lambda xp, x: xp.histogram(x, 3),
    "reshape(F)": lambda xp, x: xp.reshape(x, (3, 8), order="F"),
    "reshape(A)": lambda xp, x: xp.reshape(x, -1, order="A"),
    # arithmetic on bools: NumPy's int8 loops (Note [Bools read as int8] in _iter.pyx)
    "square(bool)": lambda xp, x: xp.square(x > 0),
    "floor_divide(bool, bool)": lambda xp, x: xp.floor_divide(x > -1, x > 0),
    "bitwise_left_shift(bool, bool)": lambda xp, x: xp.bitwise_left_shift(x > 0, x > 1),
    "conjugate(bool)": lambda xp, x: xp.conjugate(x > 0),
    # complex numbers in NumPy's order (Note [The order of complex numbers] in scalar_math.h)
    "less(complex)": lambda xp, x: xp.less(x * (1 + 1j), xp.round(x) + 0.5j),
    "maximum(complex)": lambda xp, x: xp.maximum(x * (1 + 1j), xp.round(x) + 0.5j),
    "clip(complex)": lambda xp, x: xp.clip(x * (1 + 1j), -1 + 0.5j, 1 - 0.5j),
    "pad((1, 2))": lambda xp, x: xp.pad(x, (1, 2)),
    "pad(reflect)": lambda xp, x: xp.pad(x, ((0, 1), (2, 0)), mode="reflect"),
}


@pytest.mark.parametrize("name", NUMPY_CALLS)
def test_numpy_calls_give_numpy_results(name):
    call = NUMPY_CALLS[name]
    ref = np.random.default_rng(0).permutation(24).reshape(4, 6) / 4.0 - 2.9
    for layout, t, a in _inputs(ref):
        _same(call(strided, t), call(np, a), f"{name} on {layout}")


def test_numpy_calls_without_an_array():
    _same(strided.linspace(0, 1), np.linspace(0, 1), "linspace(0, 1): num=50")
    x, y = np.arange(3.0), np.arange(2.0)
    _same(strided.meshgrid(strided.asarray(x), strided.asarray(y)), np.meshgrid(x, y), "xy")
    a, b = np.eye(3), np.arange(9.0).reshape(3, 3)
    _same(strided.cross(strided.asarray(a), strided.asarray(b)), np.cross(a, b), "cross")
    got = strided.max(strided.asarray([1, 5]), initial=strided.asarray(7))
    _same(got, np.max([1, 5], initial=7), "max(initial=0-d tensor)")
    empty = strided.zeros((0, 3))
    _same(strided.max(empty, 0, initial=2.0), np.max(np.zeros((0, 3)), 0, initial=2.0), "empty")
    v = np.array([1.0, np.nan, 4.0, 2.0, 3.0])
    _same(strided.nanmedian(strided.asarray(v)), np.nanmedian(v), "nanmedian averages")
    _same(strided.nan_to_num(strided.asarray(v), 5.0), np.nan_to_num(v, 5.0), "second is copy")
    for name in ("arange", "eye", "linspace"):  # NumPy's float64, not PyTorch's float32
        args = {"arange": (3.0,), "eye": (2,), "linspace": (0, 1, 3)}[name]
        _same(getattr(strided, name)(*args), getattr(np, name)(*args), f"{name} dtype")
    _same(strided.divide(strided.asarray([1]), 2), np.divide(np.array([1]), 2), "int / int")
    with pytest.raises(ValueError, match="only size-1"):  # torch.squeeze(x, 0) returns x
        strided.squeeze(strided.zeros((2, 3)), 0)


# -- PyTorch's spellings ----------------------------------------------------------------------


def test_pytorch_spellings_give_pytorch_results():
    torch = pytest.importorskip("torch")
    ref = np.random.default_rng(0).permutation(24).reshape(2, 3, 4) / 4.0 - 2.9
    for layout, t, a in _inputs(ref):
        x = torch.from_numpy(a.copy())
        where = layout

        def same(got, want, what, where=where):
            if isinstance(want, (tuple, list)):
                assert isinstance(got, tuple) and len(got) == len(want), f"{what} {where}"
                for g, w in zip(got, want, strict=True):
                    same(g, w, what, where)
                return
            _same(got, want.numpy(), f"{what} {where}")

        same(strided.transpose(t, 0, 2), torch.transpose(x, 0, 2), "transpose(x, 0, 2)")
        same(strided.transpose(t, dim0=1, dim1=2), torch.transpose(x, 1, 2), "dim0=, dim1=")
        same(strided.split(t, 2, dim=2), torch.split(x, 2, dim=2), "split(x, 2, dim=)")
        same(strided.split(t, [1, 3], dim=2), torch.split(x, [1, 3], dim=2), "split sizes")
        same(strided.sort(t, dim=1), tuple(torch.sort(x, dim=1)), "sort(x, dim=)")
        same(strided.argsort(t, dim=0), torch.argsort(x, dim=0, stable=True), "argsort(dim=)")
        same(strided.var(t, dim=1), torch.var(x, dim=1), "var(dim=): n - 1")
        same(strided.std(t, dim=2, keepdim=True), torch.std(x, 2, keepdim=True), "std keepdim")
        same(strided.max(t, t.flip(0)), torch.max(x, x.flip(0)), "max(a, b) elementwise")
        same(strided.min(t, -t), torch.min(x, -x), "min(a, b) elementwise")
        same(strided.sum(t, dim=(0, 2), keepdim=True), x.sum((0, 2), keepdim=True), "sum dim=")
        same(strided.cumsum(t, dim=1), torch.cumsum(x, dim=1), "cumsum(dim=)")
        same(strided.diagonal(t, 1, dim1=1, dim2=2), torch.diagonal(x, 1, 1, 2), "diagonal dim")
        same(strided.stack([t, t], dim=1), torch.stack([x, x], dim=1), "stack(dim=)")
        same(strided.tile(t, (2, 1)), torch.tile(x, (2, 1)), "tile")
        same(strided.repeat_interleave(t, 2, 1), torch.repeat_interleave(x, 2, 1), "interleave")
        for pads, mode in [((1, 2), "constant"), ((2, 1, 0, 1), "reflect"), ((1, 3), "replicate")]:
            same(F.pad(t, pads, mode), torch.nn.functional.pad(x, pads, mode), f"F.pad {mode}")
        same(F.pad(t, (-1, 2), value=9.0), torch.nn.functional.pad(x, (-1, 2), value=9.0), "crop")
    v = torch.tensor([4.0, 1.0, 3.0, 2.0], dtype=torch.float64)
    lower = strided.quantile(strided.asarray(v.numpy()), 0.5, method="lower")
    _same(lower, torch.median(v).numpy(), "torch's median is the lower middle value")
    s = torch.arange(3.0, dtype=torch.float64), torch.arange(2.0, dtype=torch.float64)
    got = strided.meshgrid(strided.arange(3.0), strided.arange(2.0), indexing="ij")
    _same(got, tuple(g.numpy() for g in torch.meshgrid(*s, indexing="ij")), "meshgrid ij")
    _same(strided.linspace(0, 1, 5), torch.linspace(0, 1, 5, dtype=torch.float64).numpy(), "lin")


# -- Bad calls: named, never ignored ---------------------------------------------------------


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda x: strided.argsort(x, kind="foo"), ValueError, "sort kind must be one of"),
        (lambda x: strided.sort(x, kind=""), ValueError, "sort kind must be one of"),
        (lambda x: strided.sort(x, kind=1), TypeError, "kind must be str"),
        (lambda x: strided.sort(x, kind="stable", stable=True), ValueError, "kind and stable"),
        (lambda x: strided.argsort(x, order="f"), ValueError, "structured"),
        (lambda x: strided.sort(x, 0, dim=1), TypeError, "axis= or dim="),
        (lambda x: strided.max(x, where=x > 0), ValueError, "needs initial="),
        (lambda x: strided.sum(x, where=strided.asarray([1, 0, 1])), TypeError, "boolean mask"),
        (
            lambda x: strided.sum(x, 0, None, True),
            TypeError,
            "out= must be a strided tensor.*keepdim",
        ),
        (lambda x: strided.sum(x, keepdims=True, foo=1), TypeError, "'foo'"),
        (lambda x: strided.mean(x, casting="unsafe"), TypeError, "'casting'"),
        (lambda x: strided.clip(x, 0, 1, casting="unsafe"), TypeError, "'casting'"),
        (lambda x: strided.clip(x, 0, 1, order="K"), TypeError, "'order'"),
        (lambda x: strided.split(x, 2), ValueError, "does not result in an equal division"),
        (lambda x: strided.split(x, 2, 1, dim=0), TypeError, "axis= .* or dim="),
        (lambda x: strided.transpose(x, 0, 1, 2), TypeError, "takes axes"),
        (lambda x: strided.transpose(x, dim0=0), TypeError, "both dim0= and dim1="),
        (lambda x: strided.reshape(x, -1, order="K"), ValueError, "order must be"),
        (lambda x: strided.clip(x, 0, a_min=1), TypeError, "each bound once"),
    ],
)
def test_bad_calls_name_what_is_wrong(call, error, match):
    with pytest.raises(error, match=match):
        call(strided.ones((3, 3)))


# -- pad ---------------------------------------------------------------------------------------

PAD_MODES = [
    ("constant", {}),
    ("constant", {"constant_values": ((1, 2), (3, 4))}),
    ("edge", {}),
    ("reflect", {}),
    ("reflect", {"reflect_type": "odd"}),
    ("symmetric", {}),
    ("symmetric", {"reflect_type": "odd"}),
    ("wrap", {}),
    ("linear_ramp", {"end_values": (5, -3)}),
    ("maximum", {}),
    ("minimum", {"stat_length": 2}),
    ("mean", {"stat_length": (1, 3)}),
    ("median", {}),
]
PAD_DTYPES = (np.float64, np.float32, np.int64, np.bool_, np.complex128)
NOT_FOR = {  # NumPy itself gives nothing sensible for these (a bool ramp, the median of complex)
    np.bool_: ("linear_ramp", "mean", "median"),
    np.complex128: ("maximum", "minimum", "median"),
}


@pytest.mark.parametrize("dtype", PAD_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("mode, kwargs", PAD_MODES, ids=[f"{m}{k}" for m, k in PAD_MODES])
def test_pad_is_numpys(mode, kwargs, dtype):
    if mode in NOT_FOR.get(dtype, ()):
        pytest.skip(f"numpy.pad's {mode} on {np.dtype(dtype).name}")
    ref = (np.random.default_rng(2).standard_normal((3, 4)) * 4).astype(dtype)
    if dtype is np.complex128:
        ref = ref + 1j * ref[::-1]
    # widths within one mirror, wider than the axis (several of NumPy's steps), a dict
    for width in [(1, 2), ((0, 2), (3, 1)), 7, {1: (5, 0)}]:
        for layout, t, a in _inputs(ref):
            where = f"pad {mode} {kwargs} {width} {layout}"
            want = np.pad(a, width, mode=mode, **kwargs)
            got = strided.pad(t, width, mode=mode, **kwargs)
            assert got.is_contiguous(), where
            if dtype is np.float32:
                np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, err_msg=where)
                assert np.asarray(got).dtype == want.dtype, where
            else:
                _same(got, want, where)


def test_pad_0d_empty_and_lists():
    _same(strided.pad(strided.asarray(5), 3), np.pad(np.array(5), 3), "0-d: a copy")
    e = np.zeros((0, 3))
    _same(strided.pad(strided.asarray(e), 2), np.pad(e, 2), "empty, constant")
    _same(
        strided.pad(strided.asarray(e), ((0, 0), (1, 1)), "edge"),
        np.pad(e, ((0, 0), (1, 1)), "edge"),
        "empty, edge along the non-empty axis",
    )
    with pytest.raises(ValueError, match="cannot extend the empty axis 0"):
        strided.pad(strided.asarray(e), 1, mode="wrap")
    _same(strided.pad([1, 2], (1, 0), "wrap"), np.pad([1, 2], (1, 0), "wrap"), "a list")
    one = np.array([4.0])
    for mode in ("reflect", "symmetric", "wrap"):
        _same(strided.pad(strided.asarray(one), 3, mode), np.pad(one, 3, mode), mode)
    x = strided.asarray([[1, 2], [3, 4]])
    assert strided.pad(x, 0).untyped_storage() is not x.untyped_storage()  # a fresh copy


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda x: strided.pad(x, -1), ValueError, "pad_width must be >= 0"),
        (lambda x: strided.pad(x, ((1, 0), (0, -2))), ValueError, ">= 0"),
        (lambda x: strided.pad(x, 1.5), TypeError, "must hold integers"),
        (lambda x: strided.pad(x, ((1, 2, 3),)), ValueError, r"shape \(1, 3\) does not broadcast"),
        (lambda x: strided.pad(x, 1, mode="foo"), ValueError, "mode 'foo' is not one of"),
        (lambda x: strided.pad(x, 1, mode="replicate"), ValueError, "NumPy's is 'edge'"),
        (lambda x: strided.pad(x, 1, mode=lambda *a: None), NotImplementedError, "function"),
        (lambda x: strided.pad(x, 1, value=3), ValueError, "constant_values="),
        (lambda x: strided.pad(x, 1, mode="edge", constant_values=1), ValueError, "'edge'"),
        (lambda x: strided.pad(x, 1, mode="reflect", reflect_type="x"), ValueError, "odd"),
        (lambda x: strided.pad(x, 1, mode="maximum", stat_length=0), ValueError, "stat_length 0"),
        (lambda x: F.pad(x, (1, 2, 3)), ValueError, "must be even"),
        (lambda x: F.pad(x, (1, 1), mode="edge"), ValueError, "mode must be one of"),
    ],
)
def test_pad_bad_inputs(call, error, match):
    with pytest.raises(error, match=match):
        call(strided.ones((2, 3)))


@pytest.mark.parametrize("mode, kwargs", PAD_MODES, ids=[f"{m}{k}" for m, k in PAD_MODES])
def test_pad_gradients(mode, kwargs):
    x = strided.asarray(np.random.default_rng(3).standard_normal((2, 3)))
    x.requires_grad_(True)
    assert gradcheck(lambda t: strided.pad(t, ((1, 4), (2, 1)), mode=mode, **kwargs), (x,))
