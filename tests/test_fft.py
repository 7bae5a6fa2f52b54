"""Tests of ``strided.fft`` (strided/fft.py, strided/cuda/_fft.py) against ``numpy.fft``.

Every transform runs over every layout of tests/layouts.py (contiguous, transposed, stepped,
negative-stride, expanded, 0-d, empty), the dtypes float32, float64, complex64, complex128,
int64 and bool, every norm, and ``n``/``s`` that pad and truncate; it must give NumPy's result
dtype exactly (complex64 for float32) and NumPy's values (bit for bit on the CPU and the
emulator: the transform *is* NumPy's, Note [FFT backend]; to the dtype's tolerance on a GPU),
or raise NumPy's exception type where NumPy raises (an ``AxisError`` as strided's
``IndexError``). Then ``out=``, the bad arguments and their messages, the frequencies and
shifts, the CUDA devices of tests/devices.py, and the gradients (gradcheck and gradgradcheck
in float64, Note [FFT gradients]; against PyTorch's when PyTorch is installed).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from devices import DEVICES, on
from layouts import LAYOUTS, agrees_with_numpy, make_layout

import strided
import strided.fft as F
from strided.autograd import Function, gradcheck, gradgradcheck

DTYPES = (
    strided.float32,
    strided.float64,
    strided.complex64,
    strided.complex128,
    strided.int64,
    strided.bool,
)
NORMS = (None, "backward", "ortho", "forward")

# name -> (shapes, argument sets): each set is called with every norm
ONE_D = [{}, {"n": 3}, {"n": 9}, {"axis": 0}, {"n": 4, "axis": 0}, {"axis": -2, "n": 1}]
N_D = [
    {},
    {"axes": (0,)},
    {"axes": (-1, 0)},
    {"axes": [1]},
    {"s": (3, 7), "axes": (0, 1)},
    {"s": (-1, 2), "axes": (1, 0)},
    {"s": (5,), "axes": (-1,)},
]
TWO_D = [{}, {"s": (3, 5)}, {"axes": (1, 0)}, {"s": (2, -1), "axes": (0, -1)}]
SHAPES_1D = [(6, 5), (7,), (2, 3, 4)]
SHAPES_ND = [(4, 6), (3, 4, 5)]
FUNCTIONS = {
    "fft": (SHAPES_1D, ONE_D),
    "ifft": (SHAPES_1D, ONE_D),
    "rfft": (SHAPES_1D, ONE_D),
    "irfft": (SHAPES_1D, ONE_D),
    "hfft": (SHAPES_1D, ONE_D),
    "ihfft": (SHAPES_1D, ONE_D),
    "fftn": (SHAPES_ND, N_D),
    "ifftn": (SHAPES_ND, N_D),
    "rfftn": (SHAPES_ND, N_D),
    "irfftn": (SHAPES_ND, N_D),
    "fft2": (SHAPES_ND, TWO_D),
    "ifft2": (SHAPES_ND, TWO_D),
    "rfft2": (SHAPES_ND, TWO_D),
    "irfft2": (SHAPES_ND, TWO_D),
}
REAL_INPUT = ("rfft", "ihfft", "rfftn", "rfft2")


def _values(shape, dtype, rng):
    """Finite values of every dtype (special values have their own test)."""
    dt = np.dtype(dtype.numpy)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind == "i":
        return rng.integers(-100, 100, shape).astype(dt)
    v = rng.standard_normal(shape)
    if dt.kind == "c":
        v = v + 1j * rng.standard_normal(shape)
    return v.astype(dt)


def _same(got, want, where, exact=True):
    """``got`` (a strided tensor) is NumPy's ``want``: shape and dtype exactly, values bit for
    bit (``exact``) or to the dtype's tolerance relative to the largest value."""
    assert isinstance(got, strided.Tensor), where
    g, w = np.asarray(got.cpu()), np.asarray(want)
    assert g.shape == w.shape, f"{where}: shape {g.shape} != {w.shape}"
    assert g.dtype == w.dtype, f"{where}: dtype {g.dtype} != {w.dtype}"
    if exact:
        np.testing.assert_array_equal(g, w, err_msg=where)
    else:
        eps = np.finfo(w.dtype).eps
        scale = np.max(np.abs(w), initial=1.0)
        np.testing.assert_allclose(g, w, rtol=0, atol=50 * eps * scale, err_msg=where)


def _numpy_fft(name, a, **kwargs):
    """NumPy's transform, but zeros where it zero-pads an empty input of irfft or hfft, which
    NumPy 2.4 fills with uninitialised memory (Note [Where strided.fft departs from NumPy])."""
    want = getattr(np.fft, name)(a, **kwargs)
    if a.size == 0 and name in ("irfft", "hfft", "irfftn", "irfft2"):
        return np.zeros_like(want)
    return want


def _is_0d_nd_departure(name, t, kwargs):
    """fftn/ifftn over no axes: a complex copy where NumPy returns its input (Note [Where
    strided.fft departs from NumPy])."""
    return name in ("fftn", "ifftn") and t.ndim == 0 and "axes" not in kwargs


# ---------------------------------------------------------------------------------------------
# Every transform against NumPy
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_transforms_match_numpy(name, dtype, rng):
    shapes, arg_sets = FUNCTIONS[name]
    fs = getattr(F, name)
    checked = 0
    for shape in shapes:
        ref = _values(shape, dtype, rng)
        for layout in LAYOUTS:
            pair = make_layout(layout, ref, rng)
            if pair is None:
                continue
            t, a = pair
            for kwargs in arg_sets:
                for norm in NORMS:
                    kw = dict(kwargs, norm=norm)
                    where = f"{name} {dtype.name} {layout} {shape} {kw}"
                    if _is_0d_nd_departure(name, t, kwargs):
                        got = fs(t, **kw)
                        assert got.dtype.kind == "c", where
                        assert complex(got.item()) == complex(a.item()), where
                        continue
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", DeprecationWarning)
                        agrees_with_numpy(
                            lambda t=t, kw=kw: fs(t, **kw),
                            lambda a=a, kw=kw: _numpy_fft(name, a, **kw),
                            _same,
                            where,
                        )
                    checked += 1
    assert checked > 100


def test_float32_gives_complex64_and_back():
    x = strided.ones(8, dtype=strided.float32)
    c = strided.ones(8, dtype=strided.complex64)
    for fn in (F.fft, F.ifft, F.rfft, F.ihfft, F.fftn, F.ifftn, F.rfftn):
        assert fn(x).dtype == strided.complex64, fn.__name__
    for fn in (F.fft2, F.ifft2, F.rfft2):
        assert fn(x.reshape(2, 4)).dtype == strided.complex64, fn.__name__
    for fn in (F.irfft, F.hfft, F.irfftn):
        assert fn(c).dtype == strided.float32, fn.__name__
        assert fn(x).dtype == strided.float32, fn.__name__
    assert F.irfft2(c.reshape(2, 4)).dtype == strided.float32
    for fn in (F.fft, F.rfft):
        assert fn(strided.arange(4)).dtype == strided.complex128
    assert F.irfft(strided.arange(4)).dtype == strided.float64


def test_special_values_propagate_as_in_numpy():
    a = np.array([1.0, np.nan, 3.0, 4.0, np.inf, -0.0, 1e300, 1e-300])
    for name in ("fft", "rfft", "ihfft", "irfft", "hfft", "ifft"):
        with np.errstate(all="ignore"):
            _same(getattr(F, name)(strided.asarray(a)), getattr(np.fft, name)(a), name)


def test_round_trips():
    rng = np.random.default_rng(1)
    x = strided.asarray(rng.standard_normal((3, 8)))
    for norm in NORMS:
        np.testing.assert_allclose(np.asarray(F.ifft(F.fft(x, norm=norm), norm=norm).real), x)
        np.testing.assert_allclose(np.asarray(F.irfft(F.rfft(x, norm=norm), norm=norm)), x)
        np.testing.assert_allclose(np.asarray(F.hfft(F.ihfft(x, norm=norm), norm=norm)), x)
        back = F.irfftn(F.rfftn(x, norm=norm), s=x.shape, axes=(0, 1), norm=norm)
        np.testing.assert_allclose(np.asarray(back), x)


def test_lists_and_numpy_arrays_are_taken():
    _same(F.fft([1.0, 2.0, 3.0]), np.fft.fft([1.0, 2.0, 3.0]), "list")
    a = np.arange(6.0).reshape(2, 3)
    _same(F.rfft2(a), np.fft.rfft2(a), "ndarray")


def test_empty_batches_and_zero_padding_of_empty_axes():
    for name in ("fft", "rfft", "irfft", "hfft", "ihfft", "ifft"):
        a = np.ones((0, 4))
        _same(getattr(F, name)(strided.asarray(a)), getattr(np.fft, name)(a), name)
    _same(F.fft(strided.ones(0), n=4), np.fft.fft(np.ones(0), n=4), "n pads an empty axis")
    _same(
        F.fftn(strided.ones((0, 3)), s=(2, 3), axes=(0, 1)),
        np.fft.fftn(np.ones((0, 3)), s=(2, 3), axes=(0, 1)),
        "s pads",
    )


def test_no_axes_is_a_complex_copy():
    x = strided.asarray([[1.0, 2.0], [3.0, 4.0]])
    for fn in (F.fftn, F.ifftn):
        y = fn(x, axes=())
        assert y.dtype == strided.complex128 and y.shape == x.shape
        np.testing.assert_array_equal(np.asarray(y), np.asarray(x))
        y[0, 0] = 7  # a copy, not the input
        assert x[0, 0].item() == 1.0
    assert F.fftn(strided.asarray(2.0, dtype=strided.float32)).dtype == strided.complex64


def test_views_are_read_in_place_and_results_wrapped_without_a_copy(monkeypatch):
    """Note [FFT backend]: NumPy gets a view of the tensor's own memory (its strides, negative
    ones included), and the tensor returned is NumPy's result array itself."""
    seen = {}
    numpy_fft = F._NUMPY_1D["c2c", True]

    def spy(a, **kwargs):
        seen["in"], seen["out"] = a, numpy_fft(a, **kwargs)
        return seen["out"]

    monkeypatch.setitem(F._NUMPY_1D, ("c2c", True), spy)
    base = strided.arange(24.0).reshape(4, 6)
    for view in (base, base.T, base[::-1, ::2], base[1:, ::-1]):
        y = F.fft(view, axis=0)
        assert np.shares_memory(seen["in"], np.asarray(base))
        assert seen["in"].strides == tuple(8 * s for s in view.stride())
        got = np.asarray(y).__array_interface__["data"][0]
        assert got == seen["out"].__array_interface__["data"][0]


def test_a_device_without_an_fft_is_named():
    class Device:
        is_cpu = is_cuda = False

        def __str__(self):
            return "tpu:0"

    class Tensor:
        device = Device()

        def numel(self):
            return 4

    with pytest.raises(NotImplementedError, match="no FFT for tensors on device tpu:0"):
        F._transform("c2c", Tensor(), (4,), (0,), "backward", True, None)


# ---------------------------------------------------------------------------------------------
# out=
# ---------------------------------------------------------------------------------------------

OUT_CASES = [
    ("fft", (4, 6), {}),
    ("ifft", (4, 6), {"n": 8, "axis": 0}),
    ("rfft", (4, 6), {"n": 5}),
    ("irfft", (4, 6), {}),
    ("hfft", (4, 6), {"n": 7}),
    ("ihfft", (4, 6), {}),
    ("fftn", (4, 6), {"s": (8, 3), "axes": (0, 1)}),
    ("ifftn", (4, 6), {}),
    ("rfftn", (4, 6), {}),
    ("irfftn", (4, 6), {"s": (5, 5), "axes": (1, 0)}),
    ("fft2", (2, 4, 6), {}),
    ("ifft2", (2, 4, 6), {}),
    ("rfft2", (2, 4, 6), {"s": (3, 3)}),
    ("irfft2", (2, 4, 6), {}),
]


@pytest.mark.parametrize("device", ["cpu", *DEVICES])
@pytest.mark.parametrize("name,shape,kwargs", OUT_CASES, ids=[c[0] for c in OUT_CASES])
def test_out(name, shape, kwargs, device, rng):
    real_in = name in REAL_INPUT
    a = _values(shape, strided.float64 if real_in else strided.complex128, rng)
    want = getattr(np.fft, name)(a, **kwargs)
    x = strided.asarray(a, device=device)
    out = strided.empty(want.shape, dtype=str(want.dtype), device=device)
    got = getattr(F, name)(x, **kwargs, out=out)
    assert got is out
    _same(out, want, name, exact=device != "cuda")
    # a wider dtype of the same kind is fine (NumPy's same_kind casting)
    if want.dtype == np.complex128:
        narrow = strided.asarray(
            a.astype(np.complex64 if not real_in else np.float32), device=device
        )
        wide = strided.empty(want.shape, dtype="complex128", device=device)
        getattr(F, name)(narrow, **kwargs, out=wide)
        assert wide.dtype == strided.complex128
    # a wrong shape is NumPy's ValueError, a dtype the result cannot be cast to a TypeError
    bad = strided.empty(
        want.shape[:-1] + (want.shape[-1] + 1,), dtype=str(want.dtype), device=device
    )
    with pytest.raises(ValueError, match=r"out= has shape .* the result has shape"):
        getattr(F, name)(x, **kwargs, out=bad)
    wrong = "float64" if want.dtype.kind == "c" else "int64"
    with pytest.raises(TypeError, match="cannot write the .* result into out= of dtype"):
        getattr(F, name)(x, **kwargs, out=strided.empty(want.shape, dtype=wrong, device=device))


def test_out_errors_match_numpy_types():
    a = np.arange(8.0)
    with pytest.raises(ValueError):
        np.fft.fft(a, out=np.empty(5, complex))
    with pytest.raises(ValueError, match="out= has shape"):
        F.fft(strided.asarray(a), out=strided.empty(5, dtype="complex128"))
    with pytest.raises(TypeError):
        np.fft.fft(a, out=np.empty(8))
    with pytest.raises(TypeError, match="out"):
        F.fft(strided.asarray(a), out=strided.empty(8))
    with pytest.raises(TypeError, match="out= must be a strided tensor"):
        F.fft(strided.asarray(a), out=np.empty(8, complex))
    # strided's one out= check (Note [Checking out=] in _iter.pyx): a device mismatch is a
    # RuntimeError, as for every op (NumPy has no devices)
    with pytest.raises(RuntimeError, match="out= is on"):
        F.fft(strided.asarray(a), out=strided.empty(8, dtype="complex128", device="cuda-emulated"))


# ---------------------------------------------------------------------------------------------
# Bad arguments
# ---------------------------------------------------------------------------------------------

M = np.ones((4, 4))


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_bad_n(name):
    fs, fn, x = getattr(F, name), getattr(np.fft, name), strided.asarray(M)
    for n in (0, -1):
        with pytest.raises(ValueError):
            fn(M, n=n)
        with pytest.raises(
            ValueError,
            match=rf"{name}: n={n} is not a valid number of FFT data points; it must be a positive",
        ):
            fs(x, n=n)
    for n in (2.0, "3"):
        with pytest.raises(TypeError):
            fn(M, n=n)
        with pytest.raises(TypeError, match=f"{name}: n must be an integer"):
            fs(x, n=n)
    with pytest.raises(TypeError, match="n must be an integer"):
        fs(x, n=True)  # NumPy takes True as 1; strided refuses bools as integers


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_bad_norm(name):
    fs, fn = getattr(F, name), getattr(np.fft, name)
    for norm in ("bad", "Ortho", 1):
        with pytest.raises(ValueError):
            fn(M, norm=norm)
        with pytest.raises(ValueError, match=r'norm=.* is not a normalisation; use "backward"'):
            fs(strided.asarray(M), norm=norm)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_bad_axis_and_0d(name):
    fs, fn = getattr(F, name), getattr(np.fft, name)
    with pytest.raises(IndexError):
        fn(M, axis=2)
    with pytest.raises(
        IndexError, match=rf"{name}: axis=2 is out of range for a tensor with 2 dims"
    ):
        fs(strided.asarray(M), axis=2)
    with pytest.raises(IndexError):
        fn(np.array(3.0))
    with pytest.raises(IndexError, match=rf"{name}: x is 0-d .* give x at least one dim"):
        fs(strided.asarray(3.0))
    with pytest.raises(TypeError, match="axis must be an integer"):
        fs(strided.asarray(M), axis=1.0)


@pytest.mark.parametrize(
    "name", ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"]
)
def test_bad_axes_and_s(name):
    fs, fn, x = getattr(F, name), getattr(np.fft, name), strided.asarray(M)
    with pytest.raises(IndexError):
        fn(M, axes=(0, 2))
    with pytest.raises(
        IndexError, match=rf"{name}: axes=2 is out of range for a tensor with 2 dims"
    ):
        fs(x, axes=(0, 2))
    with pytest.raises(ValueError):
        fn(M, s=(4,), axes=(0, 1))
    with pytest.raises(
        ValueError, match=r"s=\(4,\) has 1 lengths but axes=\(0, 1\) has 2; give one length per"
    ):
        fs(x, s=(4,), axes=(0, 1))
    with pytest.raises(ValueError, match=r"axes=\(0, 0\) names an axis twice"):
        fs(x, axes=(0, 0))
    with pytest.raises(ValueError, match=r"axes=\(1, 1\) names an axis twice"):
        fs(x, axes=(1, -1))
    for bad in (0, -2):
        with pytest.raises(ValueError):
            fn(M, s=(bad, 4), axes=(0, 1))
        with pytest.raises(ValueError, match=rf"s={bad} is not a valid number of FFT data points"):
            fs(x, s=(bad, 4), axes=(0, 1))
    with pytest.raises(TypeError, match="s must be an integer"):
        fs(x, s=(2.5, 4), axes=(0, 1))
    with pytest.raises(TypeError, match="s must be a sequence of ints"):
        fs(x, s=4, axes=(0,))
    with pytest.raises(TypeError, match="axes must be a sequence of ints"):
        fs(x, axes=0)
    with pytest.raises(IndexError):
        fn(np.arange(4.0)) if name.endswith("2") else fn(M, s=(2, 2, 2))
    if name.endswith("2"):  # the 2-D transforms of a 1-D input: axis -2 does not exist
        with pytest.raises(IndexError, match="axes=-2 is out of range"):
            fs(strided.arange(4.0))
    else:
        with pytest.raises(IndexError, match=r"s=\(2, 2, 2\) has 3 lengths but x has 2 dims"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                fs(x, s=(2, 2, 2))


@pytest.mark.parametrize("name", ["rfftn", "irfftn"])
def test_real_transforms_need_an_axis(name):
    with pytest.raises(IndexError):
        getattr(np.fft, name)(M, axes=())
    with pytest.raises(IndexError, match=rf"{name}: no axis to transform"):
        getattr(F, name)(strided.asarray(M), axes=())
    with pytest.raises(IndexError, match="no axis to transform"):
        getattr(F, name)(strided.asarray(2.0))


@pytest.mark.parametrize("name", REAL_INPUT)
def test_real_transforms_refuse_complex_input(name):
    c = M + 1j
    with pytest.raises(TypeError):
        getattr(np.fft, name)(c)
    with pytest.raises(
        TypeError, match=rf"{name}: x has dtype complex128, but {name} takes real input"
    ):
        getattr(F, name)(strided.asarray(c))


def test_lengths_that_come_out_below_one():
    # irfft's default n = 2 * (m - 1) is 0 for m = 1; an empty axis has no points
    for name in ("irfft", "hfft"):
        with pytest.raises(ValueError):
            getattr(np.fft, name)(np.ones(1))
        with pytest.raises(
            ValueError,
            match=rf"{name}: x has length 1 along axis 0, which gives n=0 FFT data points; pass n",
        ):
            getattr(F, name)(strided.ones(1))
    with pytest.raises(ValueError, match="gives 0 FFT data points"):
        F.irfftn(strided.ones((3, 1)))
    with pytest.raises(ValueError):
        np.fft.fft(np.ones(0))
    with pytest.raises(ValueError, match="fft: x has length 0 along axis 0, which gives n=0"):
        F.fft(strided.ones(0))
    with pytest.raises(ValueError, match="fftn: x has length 0 along axis 1, which has 0 FFT"):
        F.fftn(strided.ones((2, 0)))
    with pytest.raises(ValueError, match="s=-1 takes x's length along axis 1, which is 0"):
        F.fftn(strided.ones((2, 0)), s=(2, -1), axes=(0, 1))


def test_deprecated_s_forms_warn_and_act_as_numpy():
    a = np.arange(24.0).reshape(2, 3, 4)
    x = strided.asarray(a)
    for name in ("fftn", "rfftn", "irfftn", "ifftn"):
        with pytest.warns(DeprecationWarning):
            want = getattr(np.fft, name)(a, s=(2, 5))
        with pytest.warns(DeprecationWarning, match="axes` should not be None"):
            got = getattr(F, name)(x, s=(2, 5))
        _same(got, want, name)
        with pytest.warns(DeprecationWarning):
            want = getattr(np.fft, name)(a, s=(None, 5), axes=(0, 2))
        with pytest.warns(DeprecationWarning, match="None in s is deprecated"):
            got = getattr(F, name)(x, s=(None, 5), axes=(0, 2))
        _same(got, want, name)


# ---------------------------------------------------------------------------------------------
# Frequencies and shifts
# ---------------------------------------------------------------------------------------------


def test_fftfreq_and_rfftfreq():
    for n in range(1, 10):
        for d in (1.0, 0.25, 3, -2.0):
            _same(F.fftfreq(n, d), np.fft.fftfreq(n, d), f"fftfreq {n} {d}")
            _same(F.rfftfreq(n, d=d), np.fft.rfftfreq(n, d), f"rfftfreq {n} {d}")
    f32 = F.fftfreq(8, 0.1, dtype=strided.float32)
    assert f32.dtype == strided.float32
    np.testing.assert_array_equal(np.asarray(f32), np.fft.fftfreq(8, 0.1).astype(np.float32))
    assert F.rfftfreq(8, dtype="float32").dtype == strided.float32
    strided.set_default_dtype(
        strided.float32
    )  # the default real floating dtype (conftest restores it)
    assert F.fftfreq(4).dtype == strided.float32
    assert F.rfftfreq(np.int64(4)).shape == (3,)
    d = F.fftfreq(6, device="cuda-emulated")
    assert d.device == strided.device("cuda-emulated")
    assert F.rfftfreq(6, 1.0, "cuda-emulated").device.type == "cuda-emulated"


def test_fftfreq_bad_arguments_match_numpy():
    for fs, fn in ((F.fftfreq, np.fft.fftfreq), (F.rfftfreq, np.fft.rfftfreq)):
        name = fn.__name__
        with pytest.raises(ZeroDivisionError):
            fn(0)
        with pytest.raises(
            ZeroDivisionError,
            match=rf"{name}: n=0 gives a sample spacing of 1/\(n\*d\); n must be >= 1",
        ):
            fs(0)
        with pytest.raises(ZeroDivisionError):
            fn(4, 0)
        with pytest.raises(ZeroDivisionError, match="d must be nonzero"):
            fs(4, 0)
        if name == "fftfreq":  # NumPy's rfftfreq(-1) is an empty array: strided refuses it
            with pytest.raises(ValueError):
                fn(-1)
        with pytest.raises(ValueError, match=rf"{name}: n=-1 is negative"):
            fs(-1)
        with pytest.raises(ValueError):
            fn(2.0)
        with pytest.raises(ValueError, match="n should be an integer"):
            fs(2.0)
        for dtype in ("int64", "complex128", "bool"):
            with pytest.raises(TypeError, match=rf"dtype={dtype} is not a real floating dtype"):
                fs(4, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_shifts_match_numpy(dtype, rng):
    for shape in [(5,), (4, 7), (2, 3, 6)]:
        ref = _values(shape, dtype, rng)
        for layout in LAYOUTS:
            pair = make_layout(layout, ref, rng)
            if pair is None:
                continue
            t, a = pair
            for axes in (None, 0, -1, (0,), (-1, 0), [0, -1], (0, 0), ()):
                for name in ("fftshift", "ifftshift"):
                    where = f"{name} {dtype.name} {layout} {shape} axes={axes}"
                    agrees_with_numpy(
                        lambda t=t, axes=axes, name=name: getattr(F, name)(t, axes=axes),
                        lambda a=a, axes=axes, name=name: getattr(np.fft, name)(a, axes=axes),
                        _same,
                        where,
                    )


def test_shift_errors():
    with pytest.raises(ValueError):
        np.fft.fftshift(np.array(3.0))
    with pytest.raises(
        ValueError, match=r"fftshift: x is 0-d \(shape \(\)\), there is no axis to shift"
    ):
        F.fftshift(strided.asarray(3.0))
    with pytest.raises(IndexError, match="ifftshift: axes=2 is out of range"):
        F.ifftshift(strided.ones((2, 2)), axes=2)


def test_shifts_of_frequencies():
    for n in (4, 5):
        f = F.fftfreq(n)
        _same(F.fftshift(f), np.fft.fftshift(np.fft.fftfreq(n)), "fftshift")
        _same(F.ifftshift(F.fftshift(f)), np.fft.fftfreq(n), "round trip")


# ---------------------------------------------------------------------------------------------
# The namespace
# ---------------------------------------------------------------------------------------------

ARRAY_API_FFT = (
    "fft ifft fftn ifftn rfft irfft rfftn irfftn hfft ihfft fftfreq rfftfreq fftshift ifftshift"
).split()


def test_namespace():
    import inspect

    assert strided.fft is F and "fft" in strided.__all__
    for name in ARRAY_API_FFT + ["fft2", "ifft2", "rfft2", "irfft2"]:
        assert callable(getattr(strided.fft, name)), name
        assert name in F.__all__, name
        ours = inspect.signature(getattr(F, name)).parameters
        theirs = inspect.signature(getattr(np.fft, name)).parameters
        assert list(ours)[1:] == list(theirs)[1:] or name.endswith("freq"), name
    for name in ("fftfreq", "rfftfreq"):
        params = inspect.signature(getattr(F, name)).parameters
        assert list(params) == ["n", "d", "device", "dtype"], name
        assert params["dtype"].kind is inspect.Parameter.KEYWORD_ONLY
    # the Array API spellings: everything but x by keyword
    x = strided.ones((2, 4))
    F.fft(x, n=4, axis=-1, norm="ortho")
    F.fftn(x, s=(2, 4), axes=(0, 1), norm="forward")
    F.fftshift(x, axes=(0,))


# ---------------------------------------------------------------------------------------------
# CUDA devices (Note [CUDA FFT])
# ---------------------------------------------------------------------------------------------

DEVICE_CASES = [
    (name, shape, kwargs)
    for name, (shapes, arg_sets) in FUNCTIONS.items()
    for shape in shapes[:1]
    for kwargs in arg_sets[:5]
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "dtype",
    [strided.float32, strided.float64, strided.complex64, strided.complex128, strided.int64],
    ids=lambda d: d.name,
)
def test_devices_match_the_cpu(device, dtype, rng):
    exact = device == "cuda-emulated"  # the CPU's transform; cuFFT rounds its own way
    for name, shape, kwargs in DEVICE_CASES:
        ref = _values(shape, dtype, rng)
        for layout in ("contiguous", "transposed", "negative-stride", "stepped", "expanded"):
            pair = make_layout(layout, ref, rng)
            if pair is None:
                continue
            t = pair[0]
            d = on(device, t)
            for norm in ("backward", "ortho"):
                where = f"{name} {dtype.name} {layout} {kwargs} {norm} on {device}"
                try:
                    want = getattr(F, name)(t, **kwargs, norm=norm)
                except TypeError:  # complex input to a real transform
                    with pytest.raises(TypeError):
                        getattr(F, name)(d, **kwargs, norm=norm)
                    continue
                got = getattr(F, name)(d, **kwargs, norm=norm)
                assert got.device == d.device, where
                _same(got, np.asarray(want), where, exact=exact)


@pytest.mark.parametrize("device", DEVICES)
def test_devices_shifts_and_freqs(device):
    x = strided.arange(10.0).reshape(2, 5)
    d = x.to(device)
    for fn in (F.fftshift, F.ifftshift):
        got = fn(d, axes=(1,))
        assert got.device == d.device
        _same(got, np.asarray(fn(x, axes=(1,))), fn.__name__)
    assert F.fftfreq(5, device=device).device == d.device


@pytest.mark.parametrize("device", DEVICES)
def test_device_gradients(device, rng):
    x = on(device, strided.asarray(rng.standard_normal((3, 5)))).requires_grad_()
    assert gradcheck(lambda x: _parts(F.fft(x, n=6, norm="ortho")), (x,))
    assert gradcheck(lambda x: _parts(F.rfft2(x.T)), (x,))
    assert gradcheck(lambda x: F.irfft(x, n=7), (x,))
    y = F.ifftn(x, s=(4, 4), axes=(0, 1))
    strided.sum(strided.real(y)).backward()
    assert x.grad.device == x.device


# ---------------------------------------------------------------------------------------------
# Gradients (Note [FFT gradients])
# ---------------------------------------------------------------------------------------------
# strided's leaves are real (complex tensors cannot require grad yet), so complex inputs are
# built from two float64 leaves and complex outputs split into two real ones, by the two
# functions below: in PyTorch's convention (a complex gradient is dL/d(re) + i dL/d(im)), the
# one the FFT rows follow, and differentiable again for gradgradcheck.


class _Complex(Function):
    """re + i * im."""

    @staticmethod
    def forward(ctx, re, im):
        return strided.add(re, strided.multiply(im, 1j))

    @staticmethod
    def backward(ctx, g):
        return strided.real(g), _Imag.apply(g)


class _Imag(Function):
    """The imaginary part."""

    @staticmethod
    def forward(ctx, z):
        return strided.imag(z)

    @staticmethod
    def backward(ctx, g):
        return (_Complex.apply(strided.zeros_like(g), g),)


def _parts(z):
    return (strided.real(z), _Imag.apply(z)) if z.dtype.kind == "c" else z


def _view(layout, z):
    """A non-contiguous view of ``z`` (recorded by autograd)."""
    if layout == "transposed":
        return z.mT
    if layout == "negative-stride":
        return z[::-1, ::-1]
    if layout == "stepped":
        return z[:, ::2]
    return z


# (name, argument sets): the shapes are (4, 6) seen through the layout
GRAD_CASES = {
    "fft": [{}, {"n": 3}, {"n": 9, "axis": 0}],
    "ifft": [{}, {"n": 4}, {"n": 8, "axis": 0}],
    "rfft": [{}, {"n": 3}, {"n": 8, "axis": 0}],
    "irfft": [{}, {"n": 3}, {"n": 9}, {"n": 6, "axis": 0}],
    "hfft": [{}, {"n": 5}, {"n": 8, "axis": 0}],
    "ihfft": [{}, {"n": 7}, {"n": 2, "axis": 0}],
    "fftn": [{}, {"s": (5, 2), "axes": (1, 0)}],
    "ifftn": [{"axes": (0,)}, {"s": (3, 5), "axes": (0, 1)}],
    "rfftn": [{}, {"s": (3, 7), "axes": (0, 1)}],
    "irfftn": [{}, {"s": (3, 5), "axes": (1, 0)}],
    "fft2": [{}, {"s": (2, 5)}],
    "ifft2": [{}, {"s": (6, 3)}],
    "rfft2": [{}, {"s": (5, 4)}],
    "irfft2": [{}, {"s": (3, 4)}],
}


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "negative-stride", "stepped"])
@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_gradcheck(name, layout, norm, rng):
    fs = getattr(F, name)
    re = strided.asarray(rng.standard_normal((4, 6))).requires_grad_()
    if name in REAL_INPUT:
        inputs = (re,)

        def build(re):
            return _view(layout, re)
    else:
        im = strided.asarray(rng.standard_normal((4, 6))).requires_grad_()
        inputs = (re, im)

        def build(re, im):
            return _view(layout, _Complex.apply(re, im))

    for kwargs in GRAD_CASES[name]:
        assert gradcheck(lambda *xs, kw=kwargs: _parts(fs(build(*xs), **kw, norm=norm)), inputs)


def test_gradcheck_of_a_real_input_to_the_complex_transforms(rng):
    x = strided.asarray(rng.standard_normal((3, 4))).requires_grad_()
    for fn in (F.fft, F.ifft, F.fftn, F.ifft2, F.hfft, F.irfft):
        assert gradcheck(lambda x, fn=fn: _parts(fn(x[::-1])), (x,)), fn.__name__


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "hfft", "ihfft", "rfftn", "irfft2"])
def test_gradgradcheck(name, rng):
    fs = getattr(F, name)
    re = strided.asarray(rng.standard_normal((3, 4))).requires_grad_()
    if name in REAL_INPUT:
        inputs, build = (re,), lambda re: re.mT
    else:
        im = strided.asarray(rng.standard_normal((3, 4))).requires_grad_()
        inputs, build = (re, im), lambda re, im: _Complex.apply(re, im)[::-1]
    kwargs = {"n": 5} if name in ("fft", "rfft", "irfft", "hfft", "ihfft") else {}
    assert gradgradcheck(lambda *xs: _parts(fs(build(*xs), **kwargs, norm="ortho")), inputs)


def test_gradients_of_the_frequency_and_shift_functions(rng):
    x = strided.asarray(rng.standard_normal((3, 4))).requires_grad_()
    assert gradcheck(lambda x: F.fftshift(x), (x,))
    assert gradcheck(lambda x: F.ifftshift(x, axes=(1,)), (x,))


def test_out_is_not_differentiable():
    x = strided.ones(4, dtype=strided.float64).requires_grad_()
    with pytest.raises(RuntimeError, match="out= is not differentiable"):
        F.fft(x, out=strided.empty(4, dtype="complex128"))


def test_gradients_match_pytorch(rng):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((4, 6))
    w1, w2 = rng.standard_normal((4, 6)), rng.standard_normal((4, 6))
    cases = [
        ("fft", {"n": 6}),
        ("ifft", {"norm": "ortho"}),
        ("fftn", {"s": (4, 6)}),
        ("rfft", {"n": 10}),
        ("ihfft", {"n": 10, "norm": "forward"}),
        ("irfft", {"n": 6}),
        ("hfft", {"n": 6, "norm": "ortho"}),
    ]
    for name, kwargs in cases:
        x = strided.asarray(a).requires_grad_()
        tx = torch.tensor(a, requires_grad=True)
        y, ty = getattr(F, name)(x, **kwargs), getattr(torch.fft, name)(tx, **kwargs)
        k = y.shape[-1]
        if y.dtype.kind == "c":
            r, i = _parts(y)
            loss = strided.sum(r * strided.asarray(w1[:, :k])) + strided.sum(
                i * strided.asarray(w2[:, :k])
            )
            tloss = (ty.real * torch.tensor(w1[:, :k])).sum() + (
                ty.imag * torch.tensor(w2[:, :k])
            ).sum()
        else:
            loss = strided.sum(y * strided.asarray(w1[:, :k]))
            tloss = (ty * torch.tensor(w1[:, :k])).sum()
        loss.backward()
        tloss.backward()
        np.testing.assert_allclose(
            np.asarray(x.grad), tx.grad.numpy(), rtol=1e-10, atol=1e-10, err_msg=name
        )
