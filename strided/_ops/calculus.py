"""Numerical calculus on sampled functions: NumPy's ``gradient`` (derivatives by finite
differences) and ``trapezoid`` (integrals by the trapezoidal rule). ``diff``, the plain
difference both start from, is in histograms.py.

Both are arithmetic on shifted views of the same tensor (``f[2:] - f[:-2]`` along an axis), so
they run on every device and autograd differentiates them through their parts; no loop runs
per element (``gradient`` loops once per axis).

Note [Finite differences on any grid]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``gradient`` uses second-order central differences inside and one-sided differences at the two
ends, NumPy's scheme exactly, so the results agree to rounding. On a uniform grid of spacing h,
``f'(x_i) ~ (f_{i+1} - f_{i-1}) / 2h``. On a grid with steps ``h_l = x_i - x_{i-1}`` and
``h_r = x_{i+1} - x_i`` the second-order formula weights the three samples by

    a = -h_r / (h_l (h_l + h_r)),   b = (h_r - h_l) / (h_l h_r),   c = h_l / (h_r (h_l + h_r)),

which is the derivative at x_i of the parabola through the three points (for h_l = h_r it is
the central difference). At the ends, ``edge_order=1`` takes the one-sided first difference and
``edge_order=2`` the derivative of the parabola through the first (or last) three samples. Each
axis's spacing is a scalar (uniform), or the sample coordinates along it (one per sample): a
coordinate array with equal steps is treated as uniform, as NumPy does. Integer input is
differentiated in float64; float and complex keep their dtype (the spacing's dtype does not
widen the result, as the result is allocated in the input's dtype first, as in NumPy).
"""

from __future__ import annotations

from strided import _check
from strided._dtype import bool_, float64
from strided._ops import creation as _cr
from strided._ops import elementwise as _ew
from strided._ops import reduction as _red
from strided._ops import views as _vops
from strided._ops.histograms import diff

__all__ = ["gradient", "trapezoid"]


def _along(nd, axis, s):
    """The index tuple that applies ``s`` (a slice or an int) along ``axis`` of ``nd`` dims."""
    return (slice(None),) * axis + (s,)


def _spacings(f, varargs, axes):
    """One spacing per axis: a Python/0-d scalar (uniform) or a 1-D tensor of steps."""
    n = len(varargs)
    if n == 0:
        return [1.0] * len(axes)
    if n == 1 and _check.tensor(varargs[0]).ndim == 0:
        return [varargs[0]] * len(axes)
    if n != len(axes):
        raise TypeError(
            f"gradient: give one spacing for all axes or one per axis ({len(axes)}), got {n}"
        )
    out = []
    for ax, h in zip(axes, varargs, strict=True):
        t = _check.tensor(h, like=f)
        if t.ndim == 0:
            out.append(h)
            continue
        if t.ndim != 1:
            raise ValueError(f"gradient: spacing must be a scalar or 1-D, got {t.ndim} dims")
        if t.shape[0] != f.shape[ax]:
            raise ValueError(
                f"gradient: coordinates along axis {ax} must have its length {f.shape[ax]}, "
                f"got {t.shape[0]}"
            )
        if t.dtype.kind in "biu":
            t = _vops.astype(t, float64)
        steps = diff(t)
        if steps.shape[0] and bool(_red.all(_ew.equal(steps, steps[0]))):
            steps = steps[0]  # equal steps: uniform (0-d tensor, strong as NumPy's scalar)
        out.append(steps)
    return out


def _line(t, axis, nd):
    """A 1-D tensor of steps shaped to broadcast along ``axis``."""
    return _vops.reshape(t, (1,) * axis + (-1,) + (1,) * (nd - axis - 1))


def gradient(f, *varargs, axis=None, edge_order=1):
    """The gradient of the N-D sampled function ``f``: one tensor per axis (a single tensor
    for one axis), each ``f``'s shape, by finite differences (see Note [Finite differences on
    any grid]). ``varargs``: one scalar spacing for all axes, or per axis a scalar or the 1-D
    sample coordinates. ``edge_order``: 1 or 2, the accuracy at the two ends.

    Examples
    --------
    >>> import strided
    >>> f = strided.asarray([1.0, 2.0, 4.0, 7.0, 11.0])
    >>> strided.gradient(f)
    tensor([1. , 1.5, 2.5, 3.5, 4. ])
    >>> strided.gradient(f, 2.0, edge_order=2)
    tensor([0.25, 0.75, 1.25, 1.75, 2.25])
    >>> strided.gradient(strided.asarray([[1, 2, 6], [3, 4, 5]]), axis=1)
    tensor([[1. , 2.5, 4. ],
            [1. , 1. , 1. ]])
    """
    f = _check.tensor(f)
    nd = f.ndim
    if axis is None:
        axes = tuple(range(nd))
    else:
        axes = (axis,) if hasattr(type(axis), "__index__") else tuple(axis)
        axes = tuple(_check.axis(a, nd, "gradient") for a in axes)
        if len(set(axes)) != len(axes):
            raise ValueError(f"gradient: repeated axis in {axis!r}")
    if edge_order not in (1, 2):
        raise ValueError(f"gradient: edge_order must be 1 or 2, got {edge_order!r}")
    if f.dtype is bool_:
        raise TypeError("gradient: f is boolean and has no subtraction; cast it to a number")
    if f.dtype.kind in "iu":
        f = _vops.astype(f, float64)
    spacings = _spacings(f, varargs, axes)
    outs = []
    for ax, h in zip(axes, spacings, strict=True):
        n = f.shape[ax]
        if n < edge_order + 1:
            raise ValueError(
                f"gradient: f has {n} samples along axis {ax}; at least edge_order + 1 = "
                f"{edge_order + 1} are needed"
            )
        at = lambda s, ax=ax: f[_along(nd, ax, s)]  # noqa: E731 - f sliced along this axis
        out = _cr.empty_like(f)
        uniform = _check.tensor(h).ndim == 0
        if uniform:
            out[_along(nd, ax, slice(1, -1))] = (at(slice(2, None)) - at(slice(None, -2))) / (
                2.0 * h
            )
        else:
            h1, h2 = _line(h[:-1], ax, nd), _line(h[1:], ax, nd)
            a = -h2 / (h1 * (h1 + h2))
            b = (h2 - h1) / (h1 * h2)
            c = h1 / (h2 * (h1 + h2))
            inner = a * at(slice(None, -2)) + b * at(slice(1, -1)) + c * at(slice(2, None))
            out[_along(nd, ax, slice(1, -1))] = inner
        if edge_order == 1:
            out[_along(nd, ax, 0)] = (at(1) - at(0)) / (h if uniform else h[0])
            out[_along(nd, ax, -1)] = (at(-1) - at(-2)) / (h if uniform else h[-1])
        else:
            if uniform:
                a, b, c = -1.5 / h, 2.0 / h, -0.5 / h
            else:
                h1, h2 = h[0], h[1]
                a = -(2.0 * h1 + h2) / (h1 * (h1 + h2))
                b = (h1 + h2) / (h1 * h2)
                c = -h1 / (h2 * (h1 + h2))
            out[_along(nd, ax, 0)] = a * at(0) + b * at(1) + c * at(2)
            if uniform:
                a, b, c = 0.5 / h, -2.0 / h, 1.5 / h
            else:
                h1, h2 = h[-2], h[-1]
                a = h2 / (h1 * (h1 + h2))
                b = -(h2 + h1) / (h1 * h2)
                c = (2.0 * h2 + h1) / (h2 * (h1 + h2))
            out[_along(nd, ax, -1)] = a * at(-3) + b * at(-2) + c * at(-1)
        outs.append(out)
    return outs[0] if len(axes) == 1 else tuple(outs)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of the samples ``y`` along ``axis`` by the trapezoidal rule: the sum of
    ``(x[i+1] - x[i]) * (y[i+1] + y[i]) / 2``, with the sample points ``x`` (1-D along
    ``axis``, or ``y``'s shape) or, without them, the spacing ``dx``.

    Examples
    --------
    >>> import strided
    >>> strided.trapezoid(strided.asarray([1, 2, 3]))
    tensor(4.)
    >>> strided.trapezoid(strided.asarray([1, 2, 3]), x=[4, 6, 8])
    tensor(8.)
    """
    y = _check.tensor(y)
    if y.ndim == 0:
        raise ValueError("trapezoid: y must be at least 1-D, got a 0-d tensor")
    axis = _check.axis(axis, y.ndim, "trapezoid")
    if x is None:
        d = dx
    else:
        x = _check.tensor(x, like=y)
        if x.ndim == 1:
            d = _line(diff(x), axis, y.ndim)
        else:
            d = diff(x, axis=axis)
    nd = y.ndim
    ends = y[_along(nd, axis, slice(1, None))] + y[_along(nd, axis, slice(None, -1))]
    return _red.sum(d * ends / 2.0, axis=axis)
