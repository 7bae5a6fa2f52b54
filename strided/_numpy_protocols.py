"""NumPy's own functions called on strided tensors: ``np.exp(t)``, ``np.add(t, 1, out=t)``,
``np.add.reduce(t)``, ``np.concatenate([t, u])``, ``np.linalg.solve(a, b)`` run strided's
implementations and return strided tensors (NEP 13, ``__array_ufunc__``, and NEP 18,
``__array_function__``); and ``numpy_fallback``, the switch that lets NumPy run what strided
does not implement.

Note [NumPy's protocols]
~~~~~~~~~~~~~~~~~~~~~~~~
NumPy lets another array library take over its functions. A ufunc (``np.exp``, ``np.add``)
called with an object whose type defines ``__array_ufunc__`` calls that method instead of its
loop (NEP 13), and so do the ufunc's methods (``np.add.reduce``, ``.accumulate``, ``.outer``,
``.at``); a NumPy function built on ``array_function_dispatch`` (``np.sum``, ``np.concatenate``,
``np.linalg.solve``, ``np.fft.fft``: nearly all of them) calls ``__array_function__`` (NEP 18)
with the function object and the arguments exactly as the caller wrote them. Without these, a
tensor handed to NumPy becomes an ndarray through ``__array__`` and the result leaves strided
(``np.exp(t)`` was an ndarray), or NumPy's implementation calls methods on the tensor with
NumPy's internal keywords (``np.std(t)`` called ``t.std(axis=None, dtype=None, out=None,
ddof=0)`` and failed).

What strided does with each call:

1. Find strided's version. A ufunc is looked up in ``_ops.ufuncs.UFUNCS`` (the one table of
   NumPy ufuncs strided computes, under NumPy's name or any alias: ``np.arccos`` finds
   ``strided.acos``). A function is looked up by name in the namespace that mirrors its NumPy
   module (``numpy`` -> ``strided``, ``numpy.linalg`` -> ``strided.linalg``, ``numpy.fft`` ->
   ``strided.fft``), except for the names in ``_ADAPTED``, which strided spells otherwise
   (``np.copy``: ``clone`` in NumPy's memory ``order``) or which may write into an ndarray
   (``np.copyto(array, t)``), and those in ``_NUMPY_ITSELF``, which NumPy implements on any
   array-like by reading ``.shape`` or by converting with ``np.asarray`` (``np.shape``,
   ``np.ndim``, ``np.save``, ``np.shares_memory``): there NumPy's implementation is right.
2. Call it with the caller's arguments. A NumPy function may get more positional arguments than
   strided's version takes (``np.sum(t, 0)`` where ``strided.sum`` takes ``axis`` by keyword,
   as the Array API does): the extra ones are passed by NumPy's parameter names. A ufunc's
   ``out=`` tuple is unpacked; ``dtype=``, ``casting=`` and ``where=`` are honoured by computing
   and then storing, as NumPy defines them, and so is an ndarray ``out=`` (strided's functions
   write tensors); a keyword strided cannot honour raises a TypeError naming it, never
   silently ignored.
3. What strided does not implement raises a TypeError that names the NumPy function, rather
   than converting behind the caller's back: a silent conversion would leave strided (and
   autograd, and the GPU) at the first unimplemented call, which is what the protocols are
   there to stop. ``strided.numpy_fallback()`` opts in to the conversion: tensors become NumPy
   arrays (sharing memory), NumPy's implementation runs, and the arrays in its result come back
   as tensors (sharing memory again). The results are not recorded by autograd.
4. NumPy's rule for other libraries (NEP 13/18): if an argument is some third library's array
   (a type with its own ``__array_ufunc__``/``__array_function__`` that strided does not know),
   strided returns NotImplemented, so that library gets its turn; ndarrays are strided's to
   convert.

The cost. ``np.add(t, t)`` passes through NumPy's override machinery (about half a
microsecond: it checks every argument's type, normalises the keywords, builds the argument
tuple) before strided sees it. A Python ``__array_ufunc__`` on top cost as much again, so the
commonest case (a known ufunc, called plainly on tensors and Python numbers) is answered by
``TensorBase.__array_ufunc__`` in _core.pyx, compiled; every other case comes here.
``benchmarks/bench_numpy.py`` measures ``np.add(t, t)`` against ``strided.add(t, t)``.

``np.asarray(t)`` is not part of NEP 18 (it is how an ndarray is asked for): it still goes
through ``__array__`` and the buffer protocol and shares the tensor's memory.
"""

from __future__ import annotations

import importlib
import inspect
import sys

import numpy as np

import strided
from strided import _check, _core
from strided._ops import creation as _cr
from strided._ops import ufuncs as _ufuncs
from strided._ops import views as _vops

__all__ = ["array_function", "array_ufunc", "is_numpy_fallback_enabled", "numpy_fallback"]

_fallback = False  # see numpy_fallback


class numpy_fallback:  # noqa: N801 - a function to the caller (as torch.set_grad_enabled)
    """Let NumPy functions that strided does not implement run on tensors by converting them.

    Off by default: such a function called with a tensor raises a TypeError that names it. With
    the fallback on, the tensors among the arguments become NumPy arrays that share their
    memory, NumPy's own implementation runs, and every ndarray in its result comes back as a
    tensor sharing its memory. The results are not recorded by autograd, and a CUDA tensor is
    refused as ``np.asarray`` refuses it. Call it to switch for the whole process, or use it as
    a context manager to switch for a block (see Note [NumPy's protocols]).

    Parameters
    ----------
    enabled : bool
        Whether NumPy may convert (default True).

    Examples
    --------
    >>> import numpy as np
    >>> import strided
    >>> t = strided.arange(4.0)
    >>> np.lib.stride_tricks.sliding_window_view(t, 2)
    Traceback (most recent call last):
    ...
    TypeError: numpy.lib.stride_tricks.sliding_window_view is not implemented by strided, ...
    >>> with strided.numpy_fallback():
    ...     np.lib.stride_tricks.sliding_window_view(t, 2)
    tensor([[0., 1.],
            [1., 2.],
            [2., 3.]])
    >>> strided.is_numpy_fallback_enabled()
    False
    """

    def __init__(self, enabled=True):
        global _fallback
        if not isinstance(enabled, bool):
            raise TypeError(f"numpy_fallback: enabled must be True or False, got {enabled!r}")
        self._previous = _fallback
        _fallback = enabled

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        global _fallback
        _fallback = self._previous


def is_numpy_fallback_enabled():
    """Whether NumPy may convert tensors for the functions strided does not implement (see
    ``numpy_fallback``).

    Examples
    --------
    >>> import strided
    >>> strided.is_numpy_fallback_enabled()
    False
    """
    return _fallback


# -- conversions for the fallback -----------------------------------------------------------------


def _to_numpy(obj):
    """Tensors, also inside lists, tuples and dicts, as the NumPy arrays that share their memory."""
    if isinstance(obj, _core.TensorBase):
        return np.asarray(obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_numpy(x) for x in obj)
    if isinstance(obj, dict):
        return {k: _to_numpy(v) for k, v in obj.items()}
    return obj


def _to_strided(obj):
    """NumPy arrays, also inside lists and tuples, as tensors sharing their memory (arrays of a
    dtype strided lacks stay arrays; NumPy scalars and other objects are returned as they are)."""
    if isinstance(obj, np.ndarray):
        try:
            return _cr.asarray(obj)
        except (TypeError, ValueError):
            return obj
    if type(obj) in (list, tuple):
        return type(obj)(_to_strided(x) for x in obj)
    return obj


def _unimplemented(what, run_numpy):
    """The answer for a NumPy function strided lacks: NumPy's result, converted, under
    ``numpy_fallback``; else a TypeError naming it."""
    if _fallback:
        return _to_strided(run_numpy())
    raise TypeError(
        f"{what} is not implemented by strided, and it was called with a strided.Tensor: "
        "convert the tensors with np.asarray(t) to run NumPy's version, or switch on "
        "strided.numpy_fallback() to let NumPy convert them (Note [NumPy's protocols] in "
        "strided/_numpy_protocols.py)"
    )


def _foreign(obj, protocol):
    """Whether ``obj`` is some other library's array: its type answers ``protocol`` and is
    neither a tensor nor an ndarray (NEP 13/18: that library must get its turn)."""
    if obj is None or isinstance(obj, (_core.TensorBase, np.ndarray)):
        return False
    return hasattr(type(obj), protocol)


# -- NEP 13: __array_ufunc__ -----------------------------------------------------------------

# Keywords of every ufunc call that strided takes only at their defaults.
_UFUNC_DEFAULTS = {"order": "K", "signature": None}


def array_ufunc(self, ufunc, method, inputs, kwargs):
    """NumPy's ``ufunc.method(*inputs, **kwargs)`` with a tensor among the operands, run by
    strided (``TensorBase.__array_ufunc__`` in _core.pyx answers the plain calls itself). See
    Note [NumPy's protocols].

    Examples
    --------
    >>> import numpy as np
    >>> import strided
    >>> t = strided.zeros(3)
    >>> np.add(np.arange(3.0), 1, out=t)
    tensor([1., 2., 3.])
    >>> np.add.reduce(strided.asarray([[1, 2], [3, 4]]), axis=1)
    tensor([3, 7])
    """
    out = kwargs.pop("out", None)
    if any(_foreign(x, "__array_ufunc__") for x in inputs + (out or ())):
        return NotImplemented
    fn = _ufuncs.UFUNCS.get(ufunc)
    run = fn if method == "__call__" else getattr(fn, method, None)
    if run is None:
        what = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")

        def run_numpy():
            if out is not None:
                kwargs["out"] = _to_numpy(out)
            result = getattr(ufunc, method)(*_to_numpy(inputs), **kwargs)
            return out[0] if out is not None and len(out) == 1 else out or result

        return _unimplemented(what, run_numpy)
    if method == "__call__":
        return _call(ufunc, fn, inputs, out, kwargs)
    if out is not None:  # reduce, accumulate, outer: one output
        if not isinstance(out[0], _core.TensorBase):
            return _store_into(ufunc, out[0], run(*inputs, **kwargs), "same_kind", True)
        kwargs["out"] = out[0]
    return run(*inputs, **kwargs)


def _call(ufunc, fn, inputs, out, kwargs):
    """``ufunc(*inputs, out=out, **kwargs)`` by strided's ``fn``."""
    name = ufunc.__name__
    where = kwargs.pop("where", True)
    dtype = kwargs.pop("dtype", None)
    casting = kwargs.pop("casting", "same_kind")
    kwargs.pop("subok", None)  # keep subclasses or not: a tensor is returned either way
    for key in ("order", "signature"):  # the memory order of the result, the loop's dtypes
        if kwargs.get(key, _UFUNC_DEFAULTS[key]) != _UFUNC_DEFAULTS[key]:
            raise TypeError(f"numpy.{name}: strided does not support the keyword {key}=")
        kwargs.pop(key, None)
    if kwargs and ufunc.signature is None:  # (a gufunc, as matmul, takes axes= and axis=)
        raise TypeError(f"numpy.{name}: strided does not support the keyword {next(iter(kwargs))}=")
    if dtype is not None:
        inputs = tuple(_cast_input(name, x, dtype, casting) for x in inputs)
    outs = out or ()
    if (
        where is True
        and casting == "same_kind"
        and all(isinstance(o, _core.TensorBase) for o in outs)
    ):
        if not outs:
            return fn(*inputs, **kwargs)
        return fn(*inputs, out=outs[0] if ufunc.nout == 1 else outs, **kwargs)
    # What strided's functions do not take themselves (an ndarray out=, a where= mask, another
    # casting rule): compute, then store as NumPy would.
    results = fn(*inputs, **kwargs)
    results = (results,) if ufunc.nout == 1 else tuple(results)
    if not outs:
        return results[0] if ufunc.nout == 1 else results  # no out: masked-out values are free
    stored = tuple(
        r if o is None else _store_into(ufunc, o, r, casting, where)
        for o, r in zip(outs, results, strict=True)
    )
    return stored[0] if ufunc.nout == 1 else stored


def _cast_input(name, x, dtype, casting):
    """An input of a ufunc called with ``dtype=``: in that dtype (NumPy computes in it), if the
    casting rule allows (Python scalars stay weak)."""
    if type(x) in (bool, int, float, complex):
        return x
    x = _check.tensor(x)
    want = np.dtype(dtype)
    if not np.can_cast(x.dtype.numpy, want, casting):
        raise TypeError(
            f"Cannot cast ufunc '{name}' input from {x.dtype.numpy!r} to {want!r} with "
            f"casting rule {casting!r}"
        )
    # (already in it: no copy; Dask's partial sums call np.add(a, b, dtype=...) on every pair)
    return x if x.dtype.numpy == want else x.astype(want)


def _store_into(ufunc, out, result, casting, where):
    """``result`` written into ``out`` (a tensor or an ndarray) where ``where`` is true, under
    NumPy's casting rule; returns ``out``."""
    result = _check.tensor(result)
    to = out.dtype.numpy if isinstance(out, _core.TensorBase) else out.dtype
    if not np.can_cast(result.dtype.numpy, to, casting):
        raise TypeError(
            f"Cannot cast ufunc '{ufunc.__name__}' output from {result.dtype.numpy!r} to "
            f"{to!r} with casting rule {casting!r}"
        )
    if not isinstance(out, _core.TensorBase):
        np.copyto(out, np.asarray(result), casting="unsafe", where=_to_numpy(where))
    elif where is True:
        out[...] = result
    else:
        from strided._ops.elementwise import where as select

        out[...] = select(where, result, out)
    return out


# -- NEP 18: __array_function__ --------------------------------------------------------------


def _copy(a, order="K", subok=False):
    """NumPy's ``copy`` (strided spells it ``clone``): a copy laid out in NumPy's memory
    ``order``: "K" keeps the source's order of strides, "C" row-major, "F" column-major, "A"
    column-major if the source is."""
    x = _check.tensor(a)
    if order == "K":  # dims by decreasing stride, copied row-major, then put back in place
        perm = sorted(range(x.ndim), key=lambda d: -abs(x.stride(d)))
    elif order == "F" or (order == "A" and x.T.is_contiguous() and not x.is_contiguous()):
        perm = list(reversed(range(x.ndim)))
    elif order in ("A", "C"):
        return x.clone()
    else:
        raise ValueError(f"copy: order must be one of 'C', 'F', 'A', 'K', got {order!r}")
    inverse = sorted(range(x.ndim), key=perm.__getitem__)
    return _vops.permute_dims(_vops.permute_dims(x, tuple(perm)).clone(), tuple(inverse))


def _copyto(dst, src, casting="same_kind", where=True):
    """NumPy's ``copyto``: into a tensor by strided's, into an ndarray by NumPy's (which reads
    the tensors through ``np.asarray``)."""
    if isinstance(dst, np.ndarray):
        return np.copyto(dst, _to_numpy(src), casting=casting, where=_to_numpy(where))
    return strided.copyto(dst, src, casting=casting, where=where)


_ADAPTED = {np.copy: _copy, np.copyto: _copyto}
# NumPy implements these on any array-like (by reading .shape/.ndim, or by converting with
# np.asarray, which shares the tensor's memory): its implementation is the right one.
_NUMPY_ITSELF = {
    np.shape,
    np.ndim,
    np.size,
    np.may_share_memory,
    np.shares_memory,
    np.iscomplexobj,
    np.isrealobj,
    np.save,
    np.savez,
    np.savez_compressed,
    np.savetxt,
    np.array2string,
    np.array_repr,
    np.array_str,
}
_MODULES = {"numpy": "strided", "numpy.linalg": "strided.linalg", "numpy.fft": "strided.fft"}
_ANY = sys.maxsize  # "takes any number of positional arguments"
_FUNCTIONS = {}  # NumPy function -> (strided's implementation or None, positional arguments)


def _positional_count(fn):
    """How many positional arguments ``fn`` takes (_ANY for ``*args``)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return _ANY
    kinds = [p.kind for p in params]
    if inspect.Parameter.VAR_POSITIONAL in kinds:
        return _ANY
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(k in positional for k in kinds)


# NumPy's text signature of arange, ``(start_or_stop, /, stop=None, step=1, *, dtype=None,
# ...)``, hides that its C parser also takes ``dtype`` fourth by position, as its documentation
# says: ``np.arange(0, 4, 1, np.int64, like=t)`` is how Dask makes an arange chunk.
_POSITIONALS = {np.arange: ["start", "stop", "step", "dtype"]}


def _numpy_positionals(func):
    """The names of the parameters NumPy's ``func`` takes by position."""
    if func in _POSITIONALS:
        return _POSITIONALS[func]
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _implementation(func):
    """How to run NumPy's ``func``: (strided's implementation or None, how many positional
    arguments it takes, NumPy's names for the positional parameters, the position of
    NumPy's ``out`` among them or None)."""
    names = _numpy_positionals(func)
    out_pos = names.index("out") if "out" in names else None
    if func in _ADAPTED:
        impl = _ADAPTED[func]
    elif func in _NUMPY_ITSELF:
        return func._implementation, _ANY, names, None
    else:
        home = _MODULES.get(getattr(func, "__module__", None))
        impl = getattr(importlib.import_module(home), func.__name__, None) if home else None
        if not callable(impl) or isinstance(impl, type):
            return None, 0, names, None
    return impl, _positional_count(impl), names, out_pos


def _by_keyword(func, names, args, kwargs, npos):
    """``args`` beyond the first ``npos`` passed by NumPy's ``names`` for them instead."""
    if len(args) > len(names):
        raise TypeError(
            f"numpy.{func.__name__}() takes {len(names)} positional arguments but {len(args)} "
            "were given"
        )
    kwargs = dict(kwargs)
    for name, value in zip(names[npos:], args[npos:], strict=False):  # args may be fewer
        if name in kwargs:
            raise TypeError(f"numpy.{func.__name__}() got multiple values for argument {name!r}")
        kwargs[name] = value
    return args[:npos], kwargs


def array_function(self, func, types, args, kwargs):
    """NumPy's ``func(*args, **kwargs)`` with a tensor among the arguments, run by strided.
    See Note [NumPy's protocols].

    Examples
    --------
    >>> import numpy as np
    >>> import strided
    >>> np.std(strided.asarray([1.0, 2.0, 3.0, 4.0]), ddof=1)
    tensor(1.29099445)
    >>> np.concatenate([strided.zeros(2), np.ones(1)])
    tensor([0., 0., 1.])
    """
    for tp in types:
        if not issubclass(tp, (_core.TensorBase, np.ndarray)):
            return NotImplemented
    entry = _FUNCTIONS.get(func)
    if entry is None:
        entry = _FUNCTIONS[func] = _implementation(func)
    impl, npos, names, out_pos = entry
    if impl is None:
        name = f"{func.__module__}.{func.__name__}"
        return _unimplemented(
            name, lambda: func._implementation(*_to_numpy(args), **_to_numpy(kwargs))
        )
    if out_pos is not None and out_pos < min(npos, len(args)):
        if isinstance(args[out_pos], np.ndarray):
            npos = out_pos  # an ndarray out= by position: to a keyword, to be filled below
    if len(args) > npos:
        args, kwargs = _by_keyword(func, names, args, kwargs, npos)
    out = kwargs.get("out")
    if isinstance(out, np.ndarray):  # strided's functions write tensors: NumPy fills the array
        result = impl(*args, **{k: v for k, v in kwargs.items() if k != "out"})
        np.copyto(out, np.asarray(result), casting="same_kind")
        return out
    return impl(*args, **kwargs)


_core._register_numpy_protocols(_ufuncs.UFUNCS, array_ufunc, array_function)
