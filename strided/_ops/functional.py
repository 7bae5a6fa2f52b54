"""NumPy's routines that call a Python function over parts of an array: ``apply_along_axis``,
``apply_over_axes``, ``piecewise`` and ``vectorize``.

They call user code by nature, so each loops in Python, but over the coarsest parts NumPy's
contract allows: ``apply_along_axis`` once per 1-D slice (a view, as NumPy passes), and stacks
the results once; ``apply_over_axes`` once per axis; ``piecewise`` once per condition, on all
the elements that condition selects at once. Only ``vectorize`` calls its function once per
element, which is its definition (Note [vectorize is a Python loop]).

Note [vectorize is a Python loop]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``numpy.vectorize(f)`` makes ``f``, written for scalars, accept arrays: it broadcasts the
arguments and calls ``f`` once per element (or, with ``signature="(n)->()"``, once per core
slice), "provided primarily for convenience, not for performance", as NumPy's documentation
says. No kernel can run an arbitrary Python function, so the loop is Python's whatever one
does. strided's ``vectorize`` hands the loop to NumPy's: the CPU tensors are given to NumPy as
views of the same memory (the buffer protocol, no copy), NumPy's ``vectorize`` does the
broadcasting, the ``otypes``/``excluded``/``signature``/``cache`` rules and the calls (each
``f`` gets NumPy scalars, as under NumPy), and the results come back as strided tensors (on the
device of the first tensor argument). One loop, NumPy's, and NumPy's answer, by construction.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from strided import _check, _core
from strided._dtype import DType, as_dtype
from strided._ops import creation as _cr
from strided._ops import views as _vops
from strided._ops.reduction import any as _any
from strided._ops.shape import stack

__all__ = ["apply_along_axis", "apply_over_axes", "piecewise", "vectorize"]


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` applied to every 1-D slice of ``arr`` along ``axis``: the results (all of one
    shape) replace that axis, in its place. ``func1d`` gets each slice as a view.

    Examples
    --------
    >>> import strided
    >>> x = strided.asarray([[1, 2, 3], [4, 5, 6]])
    >>> strided.apply_along_axis(lambda v: v[0] + v[-1], 1, x)
    tensor([ 4, 10])
    >>> strided.apply_along_axis(lambda v: v * 2, 0, x).shape
    (2, 3)
    """
    x = _check.tensor(arr)
    axis = _check.axis(axis, x.ndim, "apply_along_axis")
    lines = _vops.moveaxis(x, axis, -1)
    outer = tuple(lines.shape[:-1])
    if 0 in outer:
        raise ValueError(
            f"apply_along_axis: cannot apply func1d when a dim other than axis is empty "
            f"(arr has shape {tuple(x.shape)}, axis={axis})"
        )
    results = [
        _check.tensor(func1d(lines[idx], *args, **kwargs), like=x)
        for idx in itertools.product(*map(range, outer))  # once per slice, not per element
    ]
    first = results[0]
    if any(tuple(r.shape) != tuple(first.shape) for r in results):
        raise ValueError("apply_along_axis: func1d must return results of one shape")
    buff = stack([_vops.astype(r, first.dtype, copy=False) for r in results])
    buff = _vops.reshape(buff, outer + tuple(first.shape))
    # the result's own dims go where ``axis`` was
    nd, rnd = buff.ndim, first.ndim
    dims = list(range(nd))
    return _vops.permute_dims(buff, tuple(dims[:axis] + dims[nd - rnd :] + dims[axis : nd - rnd]))


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` applied over each axis in turn, each result fed to the next call; a
    result with one dim fewer gets it back (size 1), so the dims stay put.

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(24).reshape(2, 3, 4)
    >>> strided.apply_over_axes(strided.sum, x, [0, 2])
    tensor([[[ 60],
             [ 92],
             [124]]])
    """
    val = _check.tensor(a)
    n = val.ndim
    axes = (axes,) if hasattr(type(axes), "__index__") else tuple(axes)
    for ax in axes:
        ax = _check.integer(ax, "apply_over_axes", "axes")
        if ax < 0:
            ax = n + ax
        res = _check.tensor(func(val, ax))
        if res.ndim != val.ndim:
            res = _vops.expand_dims(res, axis=ax)
            if res.ndim != val.ndim:
                raise ValueError(
                    f"apply_over_axes: func must return an array with {n} or {n - 1} dims, "
                    f"got {res.ndim - 1}"
                )
        val = res
    return val


def piecewise(x, condlist, funclist, *args, **kw):
    """A function defined piece by piece: where ``condlist[i]`` holds, ``funclist[i]`` (a
    function, called once with all those elements of ``x``, or a constant). One more
    function than conditions gives the value where no condition holds; elsewhere 0. The
    result has ``x``'s shape and dtype.

    Examples
    --------
    >>> import strided
    >>> x = strided.linspace(-2.0, 2.0, 5)
    >>> strided.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v**2])
    tensor([2., 1., 0., 1., 4.])
    """
    x = _check.tensor(x)
    n2 = len(funclist)
    # NumPy's undocumented rule: a scalar, or a sequence whose first item is not itself an
    # array (a 1-D mask for a 1-D x), is one condition; otherwise each item is a condition
    if isinstance(condlist, (bool, np.bool_)) or (
        isinstance(condlist, _core.TensorBase) and condlist.ndim == 0
    ):
        single = True
    else:
        first = condlist[0] if len(condlist) else None
        array_like = isinstance(first, (list, tuple, np.ndarray)) or (
            isinstance(first, _core.TensorBase) and first.ndim > 0
        )
        single = not array_like and x.ndim != 0
    conds = [condlist] if single else list(condlist)
    conds = [
        _vops.broadcast_to(_vops.astype(_check.tensor(c, like=x), "bool", copy=False), x.shape)
        for c in conds
    ]
    if len(conds) == n2 - 1:
        held = stack(conds) if conds else _cr.zeros((0, *x.shape), dtype="bool")
        conds.append(~_any(held, axis=0))
    elif len(conds) != n2:
        raise ValueError(
            f"piecewise: with {len(conds)} condition(s), either {len(conds)} or "
            f"{len(conds) + 1} functions are expected in funclist, got {n2}"
        )
    y = _cr.zeros_like(x)
    for cond, func in zip(conds, funclist, strict=True):  # once per piece, not per element
        if not callable(func):
            y[cond] = func
        else:
            vals = x[cond]
            if vals.numel() > 0:
                y[cond] = _vops.astype(_check.tensor(func(vals, *args, **kw), like=x), x.dtype)
    return y


def _to_numpy(v):
    return (
        np.asarray(v.cpu() if not v.device.is_cpu else v) if isinstance(v, _core.TensorBase) else v
    )


def _otype(t):
    """An ``otypes`` entry in NumPy's spelling (strided dtypes become their type character)."""
    if isinstance(t, DType):
        return np.dtype(t.numpy).char
    if isinstance(t, str) and len(t) == 1:
        return t
    return np.dtype(as_dtype(t).numpy if isinstance(t, str) else t).char


class vectorize:
    """A function of scalars made to take arrays: NumPy's ``vectorize`` (broadcasting,
    ``otypes``, ``excluded``, ``signature``, ``cache``), the loop NumPy's, the results strided
    tensors. A Python loop by definition: see Note [vectorize is a Python loop]. Usable as a
    decorator, with or without arguments.

    Examples
    --------
    >>> import strided
    >>> f = strided.vectorize(lambda a, b: a - b if a > b else a + b)
    >>> f(strided.asarray([1, 2, 3, 4]), 2)
    tensor([3, 4, 1, 2])
    >>> strided.vectorize(lambda v: v.sum(), signature="(n)->()")(strided.ones((2, 3)))
    tensor([3., 3.])
    """

    def __init__(
        self, pyfunc=None, otypes=None, doc=None, excluded=None, cache=False, signature=None
    ):
        if otypes is not None and not isinstance(otypes, str):
            otypes = "".join(_otype(t) for t in otypes)
        self._options = {
            "otypes": otypes,
            "doc": doc,
            "excluded": excluded,
            "cache": cache,
            "signature": signature,
        }
        self.pyfunc = pyfunc
        self._np = None
        if pyfunc is not None:
            if not callable(pyfunc):
                raise TypeError(f"vectorize: pyfunc must be callable, got {type(pyfunc).__name__}")
            self._np = np.vectorize(pyfunc, **self._options)
            self.__doc__ = self._np.__doc__
            functools.update_wrapper(self, pyfunc, updated=())
        self.otypes = otypes
        self.excluded = self._np.excluded if self._np is not None else set(excluded or ())
        self.signature = signature
        self.cache = cache

    def __call__(self, *args, **kwargs):
        if self._np is None:  # ``@vectorize(otypes=...)``: the function comes now
            return vectorize(args[0], **self._options)
        device = next(
            (
                v.device
                for v in itertools.chain(args, kwargs.values())
                if isinstance(v, _core.TensorBase)
            ),
            None,
        )
        args = [_to_numpy(v) for v in args]
        kwargs = {k: _to_numpy(v) for k, v in kwargs.items()}
        res = self._np(*args, **kwargs)
        if isinstance(res, tuple):
            return tuple(_cr.asarray(r, device=device) for r in res)
        return _cr.asarray(res, device=device)
