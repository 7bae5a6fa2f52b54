"""``strided.fft``: the Array API fft extension, with NumPy's signatures and NumPy's ``fft2``
family, as ``numpy.fft`` and ``torch.fft``.

Every transform is one of three dispatched ops, each a transform over some axes with the
lengths ``s`` already worked out (``n`` and ``s`` pad with zeros or truncate the input):

- ``fft_c2c(x, s, axes, norm, forward)``: complex to complex (fft, ifft, fftn, ifftn, fft2);
- ``fft_r2c(x, s, axes, norm)``: real to the one-sided half of the spectrum along the last of
  ``axes`` (rfft, rfftn, rfft2; ``ihfft`` is its conjugate);
- ``fft_c2r(x, s, axes, norm)``: a one-sided half back to a real signal (irfft, irfftn, irfft2;
  ``hfft`` is irfft of the conjugate).

The public functions check their arguments (the messages name the argument and what would
work), pick the dtypes, then call one of them; ``fftfreq``, ``rfftfreq``, ``fftshift`` and
``ifftshift`` are compositions of other ops.

Note [FFT backend]
~~~~~~~~~~~~~~~~~~
strided does not write an FFT. On the CPU the transform is NumPy 2's ``numpy.fft`` (pocketfft in
C++, single precision for float32 and complex64), called on a zero-copy NumPy view of the
tensor (``numpy.asarray(x)`` reads ``__array_interface__``: transposed, stepped and
negative-stride views are read in place), and its result is wrapped back without a copy
(``from_numpy``). On a GPU it is cuFFT through ``cupy.fft`` (Note [CUDA FFT] in
strided/cuda/_fft.py).

``scipy.fft`` (pocketfft as well, with plan caching, SIMD over several lines and ``workers=``
threads) was the other candidate. Measured on the project's 2-core machine (NumPy 2.4.6,
SciPy 1.17.1, medians of 7): fft of 2^20 complex64 80 ms (NumPy) vs 28 ms (SciPy, 1 worker);
rfft of 2^22 float32 195 vs 110 ms; fft2 of 2048x2048 complex64 194 vs 66 ms (42 ms with 2
workers); in double precision the two are within 1.0x-1.3x (fft of 2^20 complex128 74 vs 56
ms). So SciPy is 2-4x faster in single precision, where NumPy's pocketfft is slow. strided
still takes NumPy's, because:

- SciPy is not a dependency of strided, and would become one for this module alone (tens of MB,
  its own release cadence); NumPy already is one;
- NumPy first (DESIGN.md): with NumPy's own transform, ``strided.fft.fft(x)`` *is*
  ``numpy.fft.fft(x)``, bit for bit, on every input, and the tests hold strided to exactly that;
  a second pocketfft build rounds differently in the last bits;
- the benchmarks compare against NumPy, and strided's FFT is then NumPy's speed by
  construction (bench_fft.py), never slower by more than the call overhead.

Taking SciPy later is a change to ``_cpu_transform`` alone (``scipy.fft.fftn`` & co take the
same ``s``, ``axes`` and ``norm``, plus ``workers=strided.get_num_threads()``); the tests
would then compare with a tolerance instead of exactly.

Note [FFT dtypes]
~~~~~~~~~~~~~~~~~
float32 and complex64 are transformed in single precision: float32 in, complex64 out, as the
Array API requires (NumPy 2 does the same; NumPy 1 gave complex128). float64 and complex128
stay double. Integers and bool promote to float64 first, as NumPy does (fft of int64 is
complex128, irfft of int64 is float64). The real-input transforms (rfft, rfftn, rfft2, ihfft)
refuse complex input with a TypeError, as NumPy's do; the complex-input ones (irfft, hfft)
take real input as complex with zero imaginary part, as NumPy's do.

Note [FFT gradients]
~~~~~~~~~~~~~~~~~~~~
Each transform is linear in its input, so the gradient of its input is the adjoint transform
of the output's gradient, which is another FFT (derivatives.py has the three rows). With the
gradient convention of PyTorch (a complex gradient is dL/d(re) + i dL/d(im)), the adjoint of a
complex-linear map A is its conjugate transpose A^H:

- the DFT matrix F is symmetric, so F^H = conj(F): the adjoint of a forward transform is the
  *inverse* transform unnormalised, and the adjoint of ``fft(norm=m)`` is ``ifft`` with the
  *dual* norm (backward <-> forward, ortho <-> ortho): both scale by the same factor;
- ``n``/``s`` padded the input with zeros (the adjoint drops those entries: a truncation) or
  truncated it (the adjoint pads the gradient with zeros back to the input's length);
- rfft keeps the first n//2 + 1 outputs of the full transform, so its adjoint pads the
  gradient with zeros to n and runs the full inverse transform; a real input keeps the real
  part of the result;
- irfft reads its input as one half of a Hermitian spectrum: bins 1 .. n - (n//2 + 1) also
  stand for their mirror images n - k, the zero bin and (n even) the Nyquist bin stand for
  themselves, and their imaginary parts are ignored. Its adjoint is rfft of the gradient
  (dual norm) with the mirrored bins doubled; the imaginary parts of the zero and Nyquist bins
  get 0, since rfft of a real gradient is real there (PyTorch's fft_c2r_backward).

The formulas are written with these same dispatched ops, so double backward is recorded like
any other (gradgradcheck in tests/test_fft.py).

Note [Where strided.fft departs from NumPy]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
- A repeated axis (``fftn(x, axes=(0, 0))``) raises ValueError. NumPy transforms that axis
  twice; the Array API leaves it unspecified, and PyTorch refuses it. It is almost always a
  typo.
- ``fftn``/``ifftn`` over no axes (``axes=()``, or a 0-d input with ``axes=None``) return a
  complex copy of the input: the transform over no axes is the identity. NumPy returns the
  input object itself, with its real dtype.
- ``hfft(..., out=o)`` writes into ``o``; NumPy 2's ``hfft`` ignores its ``out``.
- ``rfftfreq`` of a negative ``n`` raises ValueError, as ``fftfreq``'s does; NumPy's returns an
  empty array.
- An empty input zero-padded by ``n``/``s`` transforms to zeros. NumPy 2.4's irfft and hfft
  return uninitialised memory there (``numpy.fft.irfft(numpy.ones((2, 0)), n=3)``), so no
  kernel is called on an empty input at all (cuFFT refuses empty plans too).
- ``s`` without ``axes`` takes the last ``len(s)`` axes with NumPy's DeprecationWarning, and an
  entry of ``s`` that is None means -1 (the input's length), also with NumPy's warning.
"""

from __future__ import annotations

import warnings

import numpy as np

from strided import _check, _dispatch, _dtype, _iter
from strided._ops import copying as _copying
from strided._ops import creation as _cr
from strided._ops import elementwise as _ew
from strided._ops import shape as _shape
from strided._ops import views as _vops

__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]

NORMS = ("backward", "ortho", "forward")
DUAL_NORM = {"backward": "forward", "ortho": "ortho", "forward": "backward"}
_COMPLEX_OF = {"float32": _dtype.complex64, "float64": _dtype.complex128}
REAL_DTYPE_OF = {"complex64": _dtype.float32, "complex128": _dtype.float64}


# -- the kernels --------------------------------------------------------------------------------


def _cpu_transform(kind, x, s, axes, norm, forward):
    """pocketfft through numpy.fft on a zero-copy view of the CPU tensor ``x``; the result is
    wrapped without a copy (Note [FFT backend])."""
    a = np.asarray(x)
    if len(axes) == 1:  # the 1-D functions: the same transform, less Python around it
        fn = _NUMPY_1D[kind, forward]
        return _cr.from_numpy(fn(a, n=s[0], axis=axes[0], norm=norm))
    return _cr.from_numpy(_NUMPY_ND[kind, forward](a, s=s, axes=axes, norm=norm))


_NUMPY_1D = {
    ("c2c", True): np.fft.fft,
    ("c2c", False): np.fft.ifft,
    ("r2c", True): np.fft.rfft,
    ("c2r", False): np.fft.irfft,
}
_NUMPY_ND = {
    ("c2c", True): np.fft.fftn,
    ("c2c", False): np.fft.ifftn,
    ("r2c", True): np.fft.rfftn,
    ("c2r", False): np.fft.irfftn,
}


def _transform(kind, x, s, axes, norm, forward, out):
    device = x.device
    if x.numel() == 0:  # all zeros, padded or not (Note [Where strided.fft departs from NumPy])
        dtype = _real_result(x) if kind == "c2r" else _complex_result(x)
        result = _cr.zeros(_out_shape(x, s, axes, kind), dtype=dtype, device=device)
    elif device.is_cpu:
        result = _cpu_transform(kind, x, s, axes, norm, forward)
    elif device.is_cuda:  # a GPU, or the emulator: Note [CUDA FFT]
        from strided.cuda import _fft as _cuda_fft

        result = _cuda_fft.transform(kind, x, s, axes, norm, forward, _cpu_transform)
    else:
        raise NotImplementedError(
            f"fft: no FFT for tensors on device {device}; move x to the CPU with x.cpu()"
        )
    if out is None:
        return result
    return _copying.copy_(out, result)


def _c2c_kernel(x, s, axes, norm, forward, out=None):
    return _transform("c2c", x, s, axes, norm, forward, out)


def _r2c_kernel(x, s, axes, norm, out=None):
    return _transform("r2c", x, s, axes, norm, True, out)


def _c2r_kernel(x, s, axes, norm, out=None):
    return _transform("c2r", x, s, axes, norm, False, out)


# One kernel per op serves both keys: it picks the device's FFT itself.
for _name, _kernel in (
    ("fft_c2c", _c2c_kernel),
    ("fft_r2c", _r2c_kernel),
    ("fft_c2r", _c2r_kernel),
):
    _dispatch.register(_name, "CPU", _kernel)
    _dispatch.register(_name, "CUDA", _kernel)


def c2c(x, s, axes, norm, forward, out=None):
    """The dispatched complex transform (checked arguments; derivatives.py calls it too)."""
    if _dispatch.possible[0] == _dispatch.CPU:
        return _c2c_kernel(x, s, axes, norm, forward, out=out)
    return _dispatch.call("fft_c2c", x, s, axes, norm, forward, out=out)


def r2c(x, s, axes, norm, out=None):
    """The dispatched real-to-half-spectrum transform (checked arguments)."""
    if _dispatch.possible[0] == _dispatch.CPU:
        return _r2c_kernel(x, s, axes, norm, out=out)
    return _dispatch.call("fft_r2c", x, s, axes, norm, out=out)


def c2r(x, s, axes, norm, out=None):
    """The dispatched half-spectrum-to-real transform (checked arguments)."""
    if _dispatch.possible[0] == _dispatch.CPU:
        return _c2r_kernel(x, s, axes, norm, out=out)
    return _dispatch.call("fft_c2r", x, s, axes, norm, out=out)


# -- argument checks ----------------------------------------------------------------------------


def _norm(fn, norm):
    if norm is None:
        return "backward"
    if isinstance(norm, str) and norm in NORMS:
        return norm
    raise ValueError(
        f'{fn}: norm={norm!r} is not a normalisation; use "backward" (the default: no scaling '
        'forward, 1/n on the inverse), "ortho" (1/sqrt(n) both ways) or "forward"'
    )


def _length(fn, name, v, default=None):
    """A transform length: an int >= 1 (ValueError below 1, TypeError for a non-integer)."""
    v = _check.integer(v, fn, name)
    if v < 1:
        hint = f" (the default here would be {default})" if default is not None else ""
        raise ValueError(
            f"{fn}: {name}={v} is not a valid number of FFT data points; it must be a positive "
            f"integer, or None for the input's length{hint}"
        )
    return v


def _input(fn, a):
    """``a`` as a tensor of a dtype the FFT computes in (Note [FFT dtypes])."""
    x = _check.tensor(a)
    if x.dtype.kind != "c" and x.dtype not in (_dtype.float32, _dtype.float64):
        x = _vops.astype(x, _dtype.float64)  # integers and bool: NumPy's float64
    return x


def _real_only(fn, x):
    """The real-input transforms refuse complex input, after the other checks (NumPy's
    order: its ufunc finds the dtype last)."""
    if x.dtype.kind == "c":
        raise TypeError(
            f"{fn}: x has dtype {x.dtype.name}, but {fn} takes real input (use the complex "
            f"transform {fn.replace('ihfft', 'ifft').replace('rfft', 'fft')} for complex "
            "input, or pass x.real)"
        )


def _no_axis(fn, x):
    return IndexError(
        f"{fn}: x is 0-d (shape ()); an FFT transforms along an axis, so give x at least one "
        "dim (x.reshape(1), or strided.atleast_1d(x))"
    )


def _one_axis(fn, x, n, axis, default_n=None):
    """(s, axes) of a 1-D transform: ``n`` (default ``default_n(length)``) along ``axis``."""
    if x.ndim == 0:
        raise _no_axis(fn, x)
    ax = _check.axis(axis, x.ndim, fn)
    length = x.shape[ax]
    if n is None:
        n = length if default_n is None else default_n(length)
        if n < 1:
            raise ValueError(
                f"{fn}: x has length {length} along axis {ax}, which gives n={n} FFT data "
                "points; pass n >= 1 to zero-pad it"
            )
    else:
        n = _length(fn, "n", n)
    return (n,), (ax,)


def _axes(fn, x, axes):
    if isinstance(axes, (tuple, list)):
        axes = tuple(_check.axis(a, x.ndim, fn, "axes") for a in axes)
    else:
        raise TypeError(
            f"{fn}: axes must be a sequence of ints (e.g. axes=(0,) or axes=[-2, -1]), got {axes!r}"
        )
    if len(set(axes)) != len(axes):
        raise ValueError(
            f"{fn}: axes={axes} names an axis twice; each axis is transformed once (NumPy "
            "transforms a repeated axis twice; for that, call the 1-D transform again)"
        )
    return axes


def _nd_args(fn, x, s, axes, inverse_real=False, stacklevel=3):
    """NumPy's (s, axes) of an n-D transform (its _cook_nd_args): ``s`` entries are ints, -1
    for the input's length; with ``inverse_real`` (irfftn) the default last length is
    2 * (m - 1). Returns (s, axes, bad): ``bad`` maps the position of each length below 1 to
    its error, which ``_check_lengths`` raises in NumPy's order."""
    if s is not None and not isinstance(s, (tuple, list)):
        raise TypeError(f"{fn}: s must be a sequence of ints (one length per axis), got {s!r}")
    if axes is None:
        if s is None:
            axes = tuple(range(x.ndim))
        else:
            warnings.warn(
                f"{fn}: `axes` should not be None if `s` is not None (deprecated in NumPy 2.0: "
                "s[i] will be the length along axes[i]); the last len(s) axes are transformed, "
                "pass axes=range(-len(s), 0) to say so",
                DeprecationWarning,
                stacklevel=stacklevel,
            )
            if len(s) > x.ndim:
                raise IndexError(
                    f"{fn}: s={tuple(s)} has {len(s)} lengths but x has {x.ndim} dims "
                    f"(shape {x.shape}); give at most one length per dim"
                )
            axes = tuple(range(x.ndim - len(s), x.ndim))
    else:
        axes = _axes(fn, x, axes)
    bad = {}
    if s is None:
        s = [x.shape[a] for a in axes]
        if inverse_real and axes:
            s[-1] = 2 * (x.shape[axes[-1]] - 1)
        for i, (n, a) in enumerate(zip(s, axes, strict=True)):
            if n < 1:
                what = "gives" if inverse_real and i == len(s) - 1 else "has"
                bad[i] = (
                    f"{fn}: x has length {x.shape[a]} along axis {a}, which {what} {n} FFT "
                    f"data points; pass s with a length >= 1 for axis {a}"
                )
        return tuple(s), axes, bad
    if len(s) != len(axes):
        raise ValueError(
            f"{fn}: s={tuple(s)} has {len(s)} lengths but axes={axes} has {len(axes)}; give "
            "one length per transformed axis"
        )
    if any(v is None for v in s):
        warnings.warn(
            f"{fn}: None in s is deprecated (NumPy 2.0); use -1 for the input's length",
            DeprecationWarning,
            stacklevel=stacklevel,
        )
    lengths = []
    for i, (v, a) in enumerate(zip(s, axes, strict=True)):
        v = -1 if v is None else _check.integer(v, fn, "s")
        if v == -1:
            v = x.shape[a]
            if v < 1:
                bad[i] = (
                    f"{fn}: s=-1 takes x's length along axis {a}, which is 0; pass a length "
                    ">= 1 to zero-pad it"
                )
        elif v < 1:
            bad[i] = (
                f"{fn}: s={v} is not a valid number of FFT data points; each length in s must "
                "be a positive integer, or -1 for the input's length"
            )
        lengths.append(v)
    return tuple(lengths), axes, bad


def _check_lengths(fn, x, axes, bad, kind):
    """Raise the error of the first invalid length in the order NumPy transforms the axes
    (fftn: the last axis first; rfftn: the last, then the others in order; irfftn: the
    others, then the last); the real-input transforms check the dtype right after the first
    axis, where NumPy's ufunc does."""
    k = len(axes)
    if kind == "c2c":
        order = list(range(k - 1, -1, -1))
    elif kind == "r2c":
        order = [k - 1, *range(k - 1)]
    else:
        order = [*range(k - 1), k - 1]
    for j, i in enumerate(order):
        if i in bad:
            raise ValueError(bad[i])
        if kind == "r2c" and j == 0:
            _real_only(fn, x)


def _out_shape(x, s, axes, kind):
    shape = list(x.shape)
    for n, a in zip(s, axes, strict=True):
        shape[a] = n
    if kind == "r2c":
        shape[axes[-1]] = s[-1] // 2 + 1
    return tuple(shape)


def _check_out(fn, out, x, s, axes, kind, dtype):
    """``out`` as NumPy's ufuncs take it: the result's shape, a dtype the result casts to
    within its kind, on x's device."""
    if out is None:
        return None
    return _iter.check_out(fn, out, _out_shape(x, s, axes, kind), dtype, x.device)


def _complex_result(x):
    return x.dtype if x.dtype.kind == "c" else _COMPLEX_OF[x.dtype.name]


def _real_result(x):
    return x.dtype if x.dtype.kind == "f" else REAL_DTYPE_OF[x.dtype.name]


# -- the complex transforms -----------------------------------------------------------------------


def _c2c_call(fn, x, s, axes, norm, forward, out, bad=None):
    if bad:
        _check_lengths(fn, x, axes, bad, "c2c")
    if out is not None:
        out = _check_out(fn, out, x, s, axes, "c2c", _complex_result(x))
    if not axes:  # the transform over no axes: Note [Where strided.fft departs from NumPy]
        result = _vops.astype(x, _complex_result(x))
        return result if out is None else _copying.copy_(out, result)
    return c2c(x, s, axes, norm, forward, out=out)


def fft(a, n=None, axis=-1, norm=None, out=None):
    """The 1-D discrete Fourier transform along ``axis`` (NumPy's ``numpy.fft.fft``).

    ``n`` zero-pads or truncates the input to ``n`` points; ``norm`` is "backward" (the
    default: unscaled), "ortho" (1/sqrt(n)) or "forward" (1/n). float32 input gives complex64,
    float64 complex128 (Note [FFT dtypes]).

    Examples
    --------
    >>> import strided
    >>> strided.fft.fft(strided.asarray([1.0, 2.0, 3.0, 4.0]))
    tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j], dtype=strided.complex128)
    """
    x = _input("fft", a)
    s, axes = _one_axis("fft", x, n, axis)
    return _c2c_call("fft", x, s, axes, _norm("fft", norm), True, out)


def ifft(a, n=None, axis=-1, norm=None, out=None):
    """The 1-D inverse discrete Fourier transform along ``axis`` (``numpy.fft.ifft``).

    Examples
    --------
    >>> import strided
    >>> strided.fft.ifft(strided.asarray([10.0, -2 + 2j, -2.0, -2 - 2j]))
    tensor([1.+0.j, 2.+0.j, 3.+0.j, 4.+0.j], dtype=strided.complex128)
    """
    x = _input("ifft", a)
    s, axes = _one_axis("ifft", x, n, axis)
    return _c2c_call("ifft", x, s, axes, _norm("ifft", norm), False, out)


def fftn(a, s=None, axes=None, norm=None, out=None):
    """The n-D discrete Fourier transform over ``axes`` (default: all), each axis padded or
    truncated to its length in ``s`` (-1: the input's length), as ``numpy.fft.fftn``.

    Examples
    --------
    >>> import strided
    >>> strided.fft.fftn(strided.ones((2, 3)))
    tensor([[6.+0.j, 0.+0.j, 0.+0.j],
            [0.+0.j, 0.+0.j, 0.+0.j]], dtype=strided.complex128)
    """
    x = _input("fftn", a)
    s, axes, bad = _nd_args("fftn", x, s, axes)
    return _c2c_call("fftn", x, s, axes, _norm("fftn", norm), True, out, bad)


def ifftn(a, s=None, axes=None, norm=None, out=None):
    """The n-D inverse discrete Fourier transform over ``axes`` (``numpy.fft.ifftn``).

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(6.0).reshape(2, 3)
    >>> strided.fft.ifftn(strided.fft.fftn(x)).real
    tensor([[0., 1., 2.],
            [3., 4., 5.]])
    """
    x = _input("ifftn", a)
    s, axes, bad = _nd_args("ifftn", x, s, axes)
    return _c2c_call("ifftn", x, s, axes, _norm("ifftn", norm), False, out, bad)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The 2-D discrete Fourier transform over the last two axes (``numpy.fft.fft2``).

    Examples
    --------
    >>> import strided
    >>> strided.fft.fft2(strided.eye(2))
    tensor([[2.+0.j, 0.+0.j],
            [0.+0.j, 2.+0.j]], dtype=strided.complex128)
    """
    x = _input("fft2", a)
    s, axes, bad = _nd_args("fft2", x, s, axes)
    return _c2c_call("fft2", x, s, axes, _norm("fft2", norm), True, out, bad)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The 2-D inverse discrete Fourier transform over the last two axes (``numpy.fft.ifft2``).

    Examples
    --------
    >>> import strided
    >>> strided.fft.ifft2(strided.ones((2, 2)))
    tensor([[1.+0.j, 0.+0.j],
            [0.+0.j, 0.+0.j]], dtype=strided.complex128)
    """
    x = _input("ifft2", a)
    s, axes, bad = _nd_args("ifft2", x, s, axes)
    return _c2c_call("ifft2", x, s, axes, _norm("ifft2", norm), False, out, bad)


# -- the real transforms ---------------------------------------------------------------------------


def _no_axes(fn):
    return IndexError(
        f"{fn}: no axis to transform (axes=() or a 0-d input); a real transform needs at "
        "least one axis, the last of which holds the one-sided spectrum"
    )


def _r2c_call(fn, x, s, axes, norm, out, bad=None):
    if not axes:
        raise _no_axes(fn)
    _check_lengths(fn, x, axes, bad or {}, "r2c")
    if out is not None:
        out = _check_out(fn, out, x, s, axes, "r2c", _COMPLEX_OF[x.dtype.name])
    return r2c(x, s, axes, norm, out=out)


def _c2r_call(fn, x, s, axes, norm, out, bad=None):
    if not axes:
        raise _no_axes(fn)
    if bad:
        _check_lengths(fn, x, axes, bad, "c2r")
    if out is not None:
        out = _check_out(fn, out, x, s, axes, "c2r", _real_result(x))
    return c2r(x, s, axes, norm, out=out)


def rfft(a, n=None, axis=-1, norm=None, out=None):
    """The 1-D discrete Fourier transform of real input: the n//2 + 1 non-negative frequencies
    (``numpy.fft.rfft``). Complex input raises TypeError, as in NumPy.

    Examples
    --------
    >>> import strided
    >>> strided.fft.rfft(strided.asarray([1.0, 2.0, 3.0, 4.0], dtype="float32"))
    tensor([10.+0.j, -2.+2.j, -2.+0.j], dtype=strided.complex64)
    """
    x = _input("rfft", a)
    s, axes = _one_axis("rfft", x, n, axis)
    return _r2c_call("rfft", x, s, axes, _norm("rfft", norm), out)


def irfft(a, n=None, axis=-1, norm=None, out=None):
    """The inverse of ``rfft``: ``n`` real points (default 2 * (m - 1) for m input points) from
    the non-negative frequencies of a Hermitian spectrum (``numpy.fft.irfft``).

    Examples
    --------
    >>> import strided
    >>> strided.fft.irfft(strided.asarray([10.0, -2 + 2j, -2.0]))
    tensor([1., 2., 3., 4.])
    """
    x = _input("irfft", a)
    s, axes = _one_axis("irfft", x, n, axis, default_n=lambda m: 2 * (m - 1))
    return _c2r_call("irfft", x, s, axes, _norm("irfft", norm), out)


def rfftn(a, s=None, axes=None, norm=None, out=None):
    """The n-D discrete Fourier transform of real input: one-sided along the last of ``axes``
    (``numpy.fft.rfftn``).

    Examples
    --------
    >>> import strided
    >>> strided.fft.rfftn(strided.ones((2, 4))).shape
    (2, 3)
    """
    x = _input("rfftn", a)
    s, axes, bad = _nd_args("rfftn", x, s, axes)
    return _r2c_call("rfftn", x, s, axes, _norm("rfftn", norm), out, bad)


def irfftn(a, s=None, axes=None, norm=None, out=None):
    """The inverse of ``rfftn``; ``s`` gives the real output's lengths (the last one defaults
    to 2 * (m - 1)), as ``numpy.fft.irfftn``.

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(8.0).reshape(2, 4)
    >>> strided.fft.irfftn(strided.fft.rfftn(x), s=x.shape, axes=(0, 1))
    tensor([[0., 1., 2., 3.],
            [4., 5., 6., 7.]])
    """
    x = _input("irfftn", a)
    s, axes, bad = _nd_args("irfftn", x, s, axes, inverse_real=True)
    return _c2r_call("irfftn", x, s, axes, _norm("irfftn", norm), out, bad)


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The 2-D discrete Fourier transform of real input (``numpy.fft.rfft2``).

    Examples
    --------
    >>> import strided
    >>> strided.fft.rfft2(strided.ones((2, 2)))
    tensor([[4.+0.j, 0.+0.j],
            [0.+0.j, 0.+0.j]], dtype=strided.complex128)
    """
    x = _input("rfft2", a)
    s, axes, bad = _nd_args("rfft2", x, s, axes)
    return _r2c_call("rfft2", x, s, axes, _norm("rfft2", norm), out, bad)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The inverse of ``rfft2`` (``numpy.fft.irfft2``).

    Examples
    --------
    >>> import strided
    >>> strided.fft.irfft2(strided.asarray([[4.0, 0.0], [0.0, 0.0]]))
    tensor([[1., 1.],
            [1., 1.]])
    """
    x = _input("irfft2", a)
    s, axes, bad = _nd_args("irfft2", x, s, axes, inverse_real=True)
    return _c2r_call("irfft2", x, s, axes, _norm("irfft2", norm), out, bad)


def hfft(a, n=None, axis=-1, norm=None, out=None):
    """The FFT of a signal with Hermitian symmetry, given by its first half: ``n`` real points
    (default 2 * (m - 1)), as ``numpy.fft.hfft`` (which is ``irfft(conj(a))`` with the
    opposite norm).

    Examples
    --------
    >>> import strided
    >>> strided.fft.hfft(strided.asarray([1.0, 2.0, 3.0]))
    tensor([ 8., -2.,  0., -2.])
    """
    x = _input("hfft", a)
    s, axes = _one_axis("hfft", x, n, axis, default_n=lambda m: 2 * (m - 1))
    norm = _norm("hfft", norm)
    return _c2r_call("hfft", _ew.conj(x), s, axes, DUAL_NORM[norm], out)


def ihfft(a, n=None, axis=-1, norm=None, out=None):
    """The inverse of ``hfft``: the n//2 + 1 non-negative frequencies of the inverse FFT of a
    real signal (``numpy.fft.ihfft``, ``conj(rfft(a))`` with the opposite norm).

    Examples
    --------
    >>> import strided
    >>> strided.fft.ihfft(strided.asarray([8.0, -2.0, 0.0, -2.0]))
    tensor([1.-0.j, 2.-0.j, 3.-0.j], dtype=strided.complex128)
    """
    x = _input("ihfft", a)
    s, axes = _one_axis("ihfft", x, n, axis)
    norm = _norm("ihfft", norm)
    half = _r2c_call("ihfft", x, s, axes, DUAL_NORM[norm], out)
    return _ew.conj(half, out=half) if out is not None else _ew.conj(half)


# -- frequencies and shifts ------------------------------------------------------------------------


def _freq_args(fn, n, d, dtype):
    if isinstance(n, bool) or not hasattr(type(n), "__index__"):
        raise ValueError(f"{fn}: n should be an integer (the window length), got {n!r}")
    n = int(n.__index__())
    if n < 0:
        raise ValueError(f"{fn}: n={n} is negative; the window length must be >= 1")
    if n == 0:
        raise ZeroDivisionError(f"{fn}: n=0 gives a sample spacing of 1/(n*d); n must be >= 1")
    if d == 0:
        raise ZeroDivisionError(f"{fn}: d=0 gives a sample spacing of 1/(n*d); d must be nonzero")
    if dtype is None:
        dtype = _dtype.get_default_dtype()
    dtype = _dtype.as_dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(
            f"{fn}: dtype={dtype.name} is not a real floating dtype; use float32 or float64"
        )
    return n, dtype


def fftfreq(n, d=1.0, device=None, *, dtype=None):
    """The sample frequencies of an ``n``-point FFT with sample spacing ``d``: 0, 1, ...,
    then the negative ones, over ``n * d`` (``numpy.fft.fftfreq``; ``dtype`` defaults to the
    default float dtype, as the Array API says).

    Examples
    --------
    >>> import strided
    >>> strided.fft.fftfreq(4, d=0.5)
    tensor([ 0. ,  0.5, -1. , -0.5])
    """
    n, dtype = _freq_args("fftfreq", n, d, dtype)
    return _cr.asarray(np.fft.fftfreq(n, d), dtype=dtype, device=device)


def rfftfreq(n, d=1.0, device=None, *, dtype=None):
    """The n//2 + 1 non-negative sample frequencies of an ``n``-point ``rfft``
    (``numpy.fft.rfftfreq``).

    Examples
    --------
    >>> import strided
    >>> strided.fft.rfftfreq(4, d=0.5)
    tensor([0. , 0.5, 1. ])
    """
    n, dtype = _freq_args("rfftfreq", n, d, dtype)
    return _cr.asarray(np.fft.rfftfreq(n, d), dtype=dtype, device=device)


def _shift(fn, x, axes, sign):
    x = _check.tensor(x)
    if x.ndim == 0 and (axes is None or (isinstance(axes, (tuple, list)) and not axes)):
        raise ValueError(
            f"{fn}: x is 0-d (shape ()), there is no axis to shift (NumPy raises here too); "
            "give x at least one dim"
        )
    if axes is None:
        axes = tuple(range(x.ndim))
    elif not isinstance(axes, (tuple, list)):
        axes = (axes,)
    axes = tuple(_check.axis(a, x.ndim, fn, "axes") for a in axes)
    if not axes:
        return _vops.astype(x, x.dtype)  # nothing to shift: a copy, as roll's result is
    shifts = tuple(sign * (x.shape[a] // 2) for a in axes)
    return _shape.roll(x, shifts, axis=axes)


def fftshift(x, axes=None):
    """``x`` rolled so that the zero frequency is in the middle of each of ``axes`` (default:
    all), as ``numpy.fft.fftshift``.

    Examples
    --------
    >>> import strided
    >>> strided.fft.fftshift(strided.fft.fftfreq(5))
    tensor([-0.4, -0.2,  0. ,  0.2,  0.4])
    """
    return _shift("fftshift", x, axes, 1)


def ifftshift(x, axes=None):
    """The inverse of ``fftshift`` (they differ for odd lengths), as ``numpy.fft.ifftshift``.

    Examples
    --------
    >>> import strided
    >>> strided.fft.ifftshift(strided.fft.fftshift(strided.arange(5)))
    tensor([0, 1, 2, 3, 4])
    """
    return _shift("ifftshift", x, axes, -1)
