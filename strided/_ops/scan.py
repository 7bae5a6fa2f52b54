"""Scans: running sums and products (Array API 2024.12 ``cumulative_sum``/``cumulative_prod``;
PyTorch's and NumPy's ``cumsum``/``cumprod`` as aliases). The kernel is ``_cpu/scan.pyx.tp``: one
sequential scan per line, lines spread over threads (see Note [Scans] there); on a CUDA device,
``strided/cuda/_scan.py`` (Note [CUDA scans]).

Dtypes follow ``sum`` (see ``_ops/reduction.py``): bools and signed integers accumulate in
int64, unsigned integers in uint64, floats and complex in their own dtype; ``dtype=`` picks
another, and the input is cast to it before the scan (so ``dtype=int8`` wraps around in int8,
as NumPy's does).

``axis=None`` is allowed only for 1-D (and 0-d) input in the Array API functions, whose result
is then 1-D; NumPy's spelling ``cumsum(x)`` with no axis scans the flattened tensor, in
row-major order. PyTorch's ``cumsum(x, dim)`` of a 0-d tensor gives a 0-d tensor.
"""

from __future__ import annotations

from strided import _check, _dispatch
from strided._cpu import copy as _copy
from strided._cpu import scan as _scan
from strided._dtype import as_dtype
from strided._ops import copying as _copying
from strided._ops.reduction import _finish, _sum_acc

__all__ = ["cumulative_sum", "cumulative_prod", "cumsum", "cumprod"]


_tensor = _check.tensor  # lists, NumPy arrays and scalars become tensors


def _axis(name, x, axis):
    """``axis`` as a non-negative int, checked."""
    if isinstance(axis, bool) or not hasattr(axis, "__index__"):
        raise TypeError(f"{name}: axis must be an int, got {axis!r}")
    return _check.axis(axis, x.ndim, name)


def _make_kernel(name):
    def kernel(x, axis, include_initial, dtype):
        acc = as_dtype(dtype) if dtype is not None else _sum_acc(x.dtype)
        if x.dtype is not acc:
            x = _copy.contiguous_copy(x, acc)
        return _scan.scan(name, x, axis, include_initial)

    kernel.__name__ = kernel.__qualname__ = f"{name}_cpu"
    _dispatch.register(name, "CPU", kernel)

    def cuda_kernel(x, axis, include_initial, dtype):
        # the same steps on the device: cast, then Note [CUDA scans] in strided/cuda/_scan.py
        from strided.cuda import _scan as cuda_scan  # loaded with the first CUDA tensor

        acc = as_dtype(dtype) if dtype is not None else _sum_acc(x.dtype)
        if x.dtype is not acc:
            x = _copying.contiguous_copy(x, acc)
        return cuda_scan.scan(name, x, axis, include_initial)

    cuda_kernel.__name__ = cuda_kernel.__qualname__ = f"{name}_cuda"
    _dispatch.register(name, "CUDA", cuda_kernel)
    return kernel


_KERNELS = {name: _make_kernel(name) for name in ("cumulative_sum", "cumulative_prod")}


def _run(name, x, axis, include_initial, dtype, out):
    if _dispatch.possible[0] == _dispatch.CPU:
        result = _KERNELS[name](x, axis, include_initial, dtype)
    else:
        result = _dispatch.call(name, x, axis, include_initial, dtype)
    return _finish(result, out)


def _cumulative(name, x, axis, dtype, include_initial, out):
    x = _tensor(x)
    if axis is None:
        if x.ndim > 1:
            raise ValueError(
                f"{name}: axis=None needs a 1-D tensor, got shape {x.shape}; pass axis= "
                "(or flatten the tensor first)"
            )
        axis = 0
    if x.ndim == 0:
        x = x.reshape(1)  # as NumPy: the scan of a 0-d tensor is 1-D
    return _run(name, x, _axis(name, x, axis), bool(include_initial), dtype, out)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False, out=None):
    """The running sums of ``x`` along ``axis``: element ``i`` is ``x[0] + ... + x[i]``.

    ``axis`` may be None only for 1-D input. With ``include_initial=True`` the result is one
    longer along ``axis`` and starts with 0 (the sum of no elements). Dtypes as ``sum``:
    integers and bools accumulate in int64 (uint64 for unsigned) unless ``dtype=`` says
    otherwise. Each line is added up in order, so the result does not depend on the layout or
    the number of threads.

    Examples
    --------
    >>> import strided
    >>> strided.cumulative_sum(strided.asarray([1, 2, 3, 4]))
    tensor([ 1,  3,  6, 10])
    >>> strided.cumulative_sum(strided.asarray([[1, 2], [3, 4]]), axis=0, include_initial=True)
    tensor([[0, 0],
            [1, 2],
            [4, 6]])
    """
    return _cumulative("cumulative_sum", x, axis, dtype, include_initial, out)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False, out=None):
    """The running products of ``x`` along ``axis``: element ``i`` is ``x[0] * ... * x[i]``.

    Arguments and dtypes as ``cumulative_sum``; ``include_initial=True`` starts with 1.

    Examples
    --------
    >>> import strided
    >>> strided.cumulative_prod(strided.asarray([1.0, 2.0, 3.0, 4.0]), include_initial=True)
    tensor([ 1.,  1.,  2.,  6., 24.])
    """
    return _cumulative("cumulative_prod", x, axis, dtype, include_initial, out)


def _alias(name, x, dim, dtype, out, axis):
    if dim is not None and axis is not None:
        raise TypeError(f"{name}: pass dim= or axis=, not both")
    dim = axis if dim is None else dim
    target = "cumulative_sum" if name == "cumsum" else "cumulative_prod"
    x = _tensor(x)
    if dim is None:
        # NumPy's cumsum(x): the flattened tensor, in row-major order
        return _run(target, x.reshape(-1), 0, False, dtype, out)
    if x.ndim == 0:
        # PyTorch's cumsum of a 0-d tensor is 0-d (dim must be 0 or -1)
        _axis(name, x.reshape(1), dim)
        return _finish(_run(target, x.reshape(1), 0, False, dtype, None).reshape(()), out)
    return _run(target, x, _axis(name, x, dim), False, dtype, out)


def cumsum(x, dim=None, *, dtype=None, out=None, axis=None):
    """PyTorch's ``cumsum(x, dim)`` and NumPy's ``cumsum(x, axis=...)``: ``cumulative_sum``
    along ``dim``; with no dim, NumPy's meaning (the flattened tensor).

    Examples
    --------
    >>> import strided
    >>> strided.cumsum(strided.asarray([[1, 2], [3, 4]]), 1)
    tensor([[1, 3],
            [3, 7]])
    >>> strided.cumsum(strided.asarray([[1, 2], [3, 4]]))
    tensor([ 1,  3,  6, 10])
    """
    return _alias("cumsum", x, dim, dtype, out, axis)


def cumprod(x, dim=None, *, dtype=None, out=None, axis=None):
    """PyTorch's ``cumprod(x, dim)`` and NumPy's ``cumprod(x, axis=...)`` (see ``cumsum``)."""
    return _alias("cumprod", x, dim, dtype, out, axis)
