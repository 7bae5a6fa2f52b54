"""``strided.Tensor``: the Python face of a tensor.

``TensorBase`` (``_core.pyx``) holds what a tensor *is*; this class adds what it *does*, as
methods that are thin glue to the operator functions in ``strided/_ops`` (as ``torch/tensor.py``
sits on ``torch._C._TensorBase``). Follow any method down: ``x.T.contiguous()`` is
``_views.reverse_dims`` (metadata only), then ``_ops.views.contiguous``, then the copy kernel in
``_cpu/copy.pyx.tp``, which runs on the loop plan of ``_iter.pyx``.

At import, the class registers itself with ``_core`` so that every tensor made down there (every
view, every fresh allocation) is a ``Tensor``. See Note [size: attribute and method] in _core.pyx
for why ``x.size`` is both an int and a method.
"""

from __future__ import annotations

import copy as _pycopy
import math
import operator
import pickle
import types as _types

import numpy as np

from strided import _core, _views
from strided._dtype import as_dtype, can_cast
from strided._ops import copying as _copying
from strided._ops import creation as _creation
from strided._ops import elementwise as _ew
from strided._ops import indexing as _ix
from strided._ops import linalg as _la
from strided._ops import reduction as _red
from strided._ops import scan as _scan
from strided._ops import shape as _shape
from strided._ops import sorting as _sorting
from strided._ops import views as _vops

# the dtypes of Tensor.half(), bfloat16(), float(), double()
_half_dtypes = {n: as_dtype(n) for n in ("float16", "bfloat16", "float32", "float64")}

__all__ = ["Tensor", "TensorAccessor"]


def _shape_args(shape):
    if len(shape) == 1 and not hasattr(shape[0], "__index__"):
        return tuple(shape[0])
    return tuple(shape)


def _memory_order(t):
    """``t``'s dims by decreasing |stride|: a stable insertion sort in which a stride-0
    (broadcast) dim compares with nothing and keeps its place, as NumPy's
    PyArray_CreateSortedStridePerm; negative strides read ascending, as NumPy's "K"."""
    strides = [abs(t.stride(d)) for d in range(t.ndim)]
    dims = list(range(t.ndim))
    for i0 in range(1, t.ndim):
        d0, pos = dims[i0], i0
        for i1 in range(i0 - 1, -1, -1):
            s0, s1 = strides[d0], strides[dims[i1]]
            if s0 == 0 or s1 == 0:
                continue  # ambiguous: look further left
            if s1 < s0:
                pos = i1
            else:
                break
        dims.insert(pos, dims.pop(i0))
    return tuple(dims)


def _resolve_order(t, order, what):
    """NumPy's order letter as "C", "F" or "K": "A" is "F" where ``t`` is F-contiguous only."""
    if order == "A":
        return "F" if t.ndim > 1 and t.T.is_contiguous() and not t.is_contiguous() else "C"
    if order in ("C", "F", "K"):
        return order
    raise ValueError(f"{what}: order must be one of 'C', 'F', 'A', 'K', got {order!r}")


def _ordered_copy(t, order, what):
    """A copy of ``t`` whose elements, read flat, are in NumPy's ``order``: "C" row-major, "F"
    column-major, "A" column-major if ``t`` is F-contiguous else row-major, "K" memory order."""
    order = _resolve_order(t, order, what)
    if order == "K":
        return _views.permute(t, _memory_order(t)).contiguous()
    if order == "F":
        return _views.reverse_dims(t).contiguous()
    return t.contiguous() if not t.is_contiguous() else t.clone()


# Note [A copy's order]
# ~~~~~~~~~~~~~~~~~~~~~
# NumPy's ``a.copy(order)`` and ``a.astype(dtype, order)`` keep the shape and choose where the
# copy's elements lie: "C" row-major (``copy``'s default), "F" column-major, "A" column-major
# only for an F-contiguous source, "K" (``astype``'s default) the source's memory order, dims by
# decreasing |stride| (a stride-0 broadcast dim last, unlike ravel's "K") and every stride
# positive. Each is one row-major copy of the source with its dims permuted into that order,
# permuted back: a view, so the strides come out as NumPy's.
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _copy_in_order(t, dtype, order, what):
    """A copy of ``t`` as ``dtype`` whose memory is laid out in NumPy's ``order``."""
    if order in ("K", "C", "A") and t.is_contiguous():  # the common case: row-major in these
        return _copying.contiguous_copy(t, dtype)
    order = _resolve_order(t, order, what)
    if order == "K":  # a plain stable sort here: a broadcast dim is the innermost, as NumPy's
        st = t.strides
        if t.ndim == 2:  # the common case (a transposed matrix), without the sort's cost
            dims = (1, 0) if abs(st[1]) > abs(st[0]) else (0, 1)
        else:
            key = [-abs(s) for s in st]
            dims = tuple(sorted(range(t.ndim), key=key.__getitem__))
    elif order == "F":
        dims = tuple(range(t.ndim - 1, -1, -1))
    if order == "C" or dims == tuple(range(t.ndim)):  # row-major already: no views to record
        return _copying.contiguous_copy(t, dtype)
    if t._requires_grad:  # through recorded views, so the copy has its backward
        back = tuple(sorted(range(t.ndim), key=dims.__getitem__))
        return _views.permute(_copying.contiguous_copy(_views.permute(t, dims), dtype), back)
    return _copying.copy_in_dims_order(t, dims, dtype)  # the same layout, made directly


def _order_holds(t, order):
    """Whether ``t`` is already laid out as a copy in ``order`` would be (astype(copy=False))."""
    if order == "K":
        return True
    c, f = t.is_contiguous(), _views.reverse_dims(t).is_contiguous()
    return {"C": c, "F": f, "A": c or f}.get(order, False)


# Note [Reduction methods: NumPy's positions, PyTorch's keywords]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# NumPy and PyTorch agree on a reduction's first argument (the axis) and disagree on the rest:
# NumPy's ``a.sum(0, np.float64)`` passes a dtype second, PyTorch's ``x.sum(0, True)`` a
# keepdim flag; ``a.max(1)`` is NumPy's row of maxima, ``x.max(dim=1)`` PyTorch's (values,
# indices). By the NumPy-first rule (Note [NumPy first] in DESIGN.md) a call NumPy accepts gets
# NumPy's meaning, and PyTorch's survives where NumPy would refuse the call:
#   - positional arguments are NumPy's (``axis, dtype, out, keepdims`` for sum, and so on);
#   - a bool in second place (where NumPy wants a dtype or an ``out`` array and would raise) is
#     PyTorch's ``keepdim`` (or ``unbiased`` for var/std), and the call is read as PyTorch's;
#   - PyTorch's keywords ``dim=``/``keepdim=`` make the call PyTorch's too, so ``x.max(dim=1)``
#     returns ``(values, indices)`` and ``x.std(dim=0)`` divides by n - 1 as torch.std does;
#   - a tensor as the argument of ``max``/``min`` is PyTorch's elementwise ``torch.max(a, b)``.
# Only the arguments the caller gave are passed on, so a NumPy keyword the function lacks
# (``a.var(dtype=...)``) raises a TypeError that names it instead of being dropped.


def _is_axis(value, ndim):
    """Whether ``value`` is an int axis of a tensor of ``ndim`` dims (NumPy would take it)."""
    return (
        isinstance(value, (int, np.integer))
        and not _is_flag(value)
        and -ndim <= value < max(ndim, 1)
    )


def _is_flag(value):
    return isinstance(value, (bool, np.bool_))


def _reduction_method(fn, numpy_positional, torch_positional, pairs=False):
    """A Tensor method for the reduction ``fn``, reading its arguments as Note [Reduction
    methods: NumPy's positions, PyTorch's keywords] says; ``pairs``: max and min, whose
    PyTorch calls give (values, indices) and whose argument may be another tensor."""
    name = fn.__name__
    # x.sum() with every default: the short road of Note [Whole reductions at NumPy's per-call
    # cost] in _ops/reduction.py, where the function has one
    whole = getattr(fn, "_whole", fn)

    def method(self, *args, **kwargs):
        if not kwargs and len(args) <= 1:  # the common calls, x.sum() and x.sum(0), at once
            if not args:
                return whole(self)
            if not isinstance(args[0], _core.TensorBase):
                return fn(self, axis=args[0])
        if pairs and len(args) == 1 and isinstance(args[0], _core.TensorBase):
            return (_ew.maximum if name == "max" else _ew.minimum)(self, args[0], **kwargs)
        torch_form = "dim" in kwargs or "keepdim" in kwargs or (len(args) > 1 and _is_flag(args[1]))
        positional = torch_positional if torch_form else numpy_positional
        if len(args) > len(positional):
            raise TypeError(
                f"{name}() takes at most {len(positional)} positional arguments "
                f"({', '.join(positional)}), got {len(args)}"
            )
        for key, value in zip(positional, args, strict=False):
            if key in kwargs:
                raise TypeError(f"{name}() got multiple values for argument {key!r}")
            kwargs[key] = value
        for key in ("dtype", "out"):  # NumPy's defaults, spelled out: nothing to pass on
            if key in kwargs and kwargs[key] is None:
                del kwargs[key]
        if not torch_form:
            return fn(self, **kwargs)
        if "dim" not in kwargs and name in ("var", "std"):
            kwargs.setdefault("unbiased", True)  # x.var(0, True) without dim=: torch's default
        return fn(self, **kwargs)  # max/min with an int dim= give (values, indices) themselves

    method.__name__ = method.__qualname__ = name
    method.__doc__ = (
        f"``strided.{name}(self, ...)`` with NumPy's positional arguments "
        f"({', '.join(numpy_positional)}) or PyTorch's ({', '.join(torch_positional)}); see Note "
        "[Reduction methods: NumPy's positions, PyTorch's keywords] in _tensor.py."
        + (
            f" ``x.{name}(dim=d)`` gives PyTorch's ``(values, indices)``; ``x.{name}(d)`` "
            "NumPy's values."
            if pairs
            else ""
        )
    )
    return method


def _rebuild(data, shape, dtype_name, requires_grad, device=None):
    """Unpickle: a fresh tensor from the bytes of a contiguous copy (on ``device``, if given)."""
    arr = np.frombuffer(data, dtype=as_dtype(dtype_name).numpy).reshape(shape)
    t = None
    if device is None and arr.flags.writeable:
        try:
            t = _creation.from_numpy(arr)  # a buffer pickle handed over out of band: ours
        except ValueError:
            pass  # an address not aligned for the dtype (inside a message): copy it
    if t is None:
        t = _creation.asarray(arr, copy=True, device=device)
    if requires_grad:
        t.requires_grad = True
    return t


class Tensor(_core.TensorBase):
    """An n-dimensional array: a dtype, a shape, strides and an offset over a Storage.

    Make one with ``strided.tensor``, ``strided.asarray``, ``strided.zeros`` and friends.

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(6).reshape((2, 3))
    >>> x.T.stride(), x.T.is_contiguous()
    ((1, 3), False)
    """

    __array_priority__ = 100  # NumPy defers binary operators to us

    # -- arithmetic: Python operators route to the elementwise ops --------------------------------
    # ``a + b`` and ``1 + a`` are slots of the compiled TensorBase that call ``strided.add``
    # (Note [Operators in the compiled class] in _core.pyx); the in-place forms are here:
    # ``a += b`` is ``add(a, b, out=a)``. See Note [Two dispatches].

    def __iadd__(self, other):
        return _ew.add(self, other, out=self)

    def __isub__(self, other):
        return _ew.subtract(self, other, out=self)

    def __imul__(self, other):
        return _ew.multiply(self, other, out=self)

    def __itruediv__(self, other):
        return _ew.divide(self, other, out=self)

    def __ifloordiv__(self, other):
        return _ew.floor_divide(self, other, out=self)

    def __imod__(self, other):
        return _ew.remainder(self, other, out=self)

    def __ipow__(self, other):
        return _ew.pow(self, other, out=self)

    def __iand__(self, other):
        return _ew.bitwise_and(self, other, out=self)

    def __ior__(self, other):
        return _ew.bitwise_or(self, other, out=self)

    def __ixor__(self, other):
        return _ew.bitwise_xor(self, other, out=self)

    def __ilshift__(self, other):
        return _ew.bitwise_left_shift(self, other, out=self)

    def __irshift__(self, other):
        return _ew.bitwise_right_shift(self, other, out=self)

    def __neg__(self):
        return _ew.negative(self)

    def __pos__(self):
        return _ew.positive(self)

    def __abs__(self):
        return _ew.abs(self)

    def __invert__(self):
        return _ew.bitwise_invert(self)

    # -- views (never copy) -------------------------------------------------------------------

    def __getitem__(self, index):
        return _views.getitem(self, index)

    def view(self, *shape, dtype=None):
        """The same memory with another shape; never copies (see Note [view versus reshape]).

        ``view(dtype)`` (NumPy's ``a.view(np.int64)``, PyTorch's ``x.view(torch.int64)``) reads
        the same bytes as another dtype: see Note [A view as another dtype] in _views.pyx.
        """
        if (
            dtype is None
            and len(shape) == 1
            and (isinstance(shape[0], type) or not hasattr(shape[0], "__index__"))
            and not isinstance(shape[0], (tuple, list))
        ):  # a type object (np.int64 has an __index__ method too) or a dtype
            dtype, shape = shape[0], ()
        if dtype is not None:
            if shape:
                raise TypeError("view: give a shape or a dtype, not both")
            from strided.autograd.grad_mode import is_grad_enabled

            if self.requires_grad and is_grad_enabled():
                raise RuntimeError(
                    "view(dtype): reading the bytes as another dtype is not differentiable; "
                    "call it on x.detach()"
                )
            return _views.dtype_view(self, as_dtype(dtype))
        return _views.view(self, _shape_args(shape))

    def reshape(self, *shape, copy=None, order="C"):
        """A view with a new shape when the strides allow it, else a copy. ``order="F"`` reads
        and writes the elements in Fortran (first index fastest) order, as NumPy's does."""
        shape = _shape_args(shape)
        if order != "C":
            if order != "F":
                raise ValueError(f"reshape: order must be 'C' or 'F', got {order!r}")
            shape = tuple(shape)
            if -1 in shape:  # the one unknown size, as reshape resolves it
                known = math.prod(n for n in shape if n != -1)
                shape = tuple(self.numel() // known if n == -1 and known else n for n in shape)
            return _vops.reshape(self.T, tuple(reversed(shape))).T
        if copy is None:
            out = _views.try_view(self, shape)  # the common case, without the Python layers
            if out is not None:
                return out
        return _vops.reshape(self, shape, copy=copy)

    def transpose(self, *axes, dim0=None, dim1=None):
        """A view with permuted dims, in NumPy's spellings and PyTorch's (Note [NumPy first] in
        DESIGN.md): ``x.transpose()`` reverses the dims (``x.T``); ``x.transpose((2, 0, 1))``
        and ``x.transpose(2, 0, 1)``, one axis per dim, permute them, as NumPy's. Two dims on
        a tensor of another rank, ``x.transpose(0, 2)`` on 3-D, which NumPy would refuse, swap
        them (PyTorch's ``transpose``); ``x.transpose(dim0=0, dim1=1)`` swaps on any rank.
        On 2-D the meanings collide and NumPy's wins: ``x.transpose(1, 0)`` is the transpose
        and ``x.transpose(0, 1)`` the identity permutation (use ``x.T``, ``x.mT`` or
        ``x.swapaxes(0, 1)``)."""
        if dim0 is not None or dim1 is not None:
            if axes or dim0 is None or dim1 is None:
                raise TypeError("transpose: give both dim0= and dim1= (and no axes)")
            return _views.transpose(self, dim0, dim1)
        if not axes or (len(axes) == 1 and axes[0] is None):
            return _views.reverse_dims(self)
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            return _views.permute(self, tuple(axes[0]))
        if len(axes) == 2 and self.ndim != 2:
            return _views.transpose(self, axes[0], axes[1])
        return _views.permute(self, tuple(axes))

    def permute(self, *dims):
        """Dims in the order ``dims`` (a view)."""
        return _views.permute(self, _shape_args(dims))

    def movedim(self, source, destination):
        return _views.movedim(self, source, destination)

    moveaxis = movedim

    def swapaxes(self, axis1, axis2):
        return _views.transpose(self, axis1, axis2)

    @property
    def T(self):
        """All dims reversed, as NumPy's ``.T`` (a view)."""
        return _views.reverse_dims(self)

    @property
    def mT(self):
        """The last two dims swapped (a view)."""
        return _views.matrix_transpose(self)

    def flatten(self, start_dim=0, end_dim=-1, *, order=None):
        """NumPy's ``x.flatten(order="C")`` (a 1-D copy; ``order`` "C", "F", "A" or "K", also
        given positionally: ``x.flatten("F")``), or PyTorch's ``x.flatten(start_dim, end_dim)``
        (dims start_dim..end_dim merged, a view where the strides allow)."""
        if isinstance(start_dim, str):
            order, start_dim = start_dim, 0
        if order is not None:
            return _ordered_copy(self, order, "flatten").reshape(-1)
        return _vops.flatten(self, start_dim, end_dim)

    def ravel(self, order="C"):
        """The elements as 1-D, in NumPy's ``order`` ("C" row-major, "F" column-major, "A",
        "K" memory order): a view when the strides allow it, else a copy, as NumPy's."""
        if order == "C":
            return _vops.reshape(self, (-1,))
        if order == "F":
            return _vops.reshape(_views.reverse_dims(self), (-1,))
        return _ordered_copy(self, order, "ravel").reshape(-1)

    def unflatten(self, dim, sizes):
        return _views.unflatten(self, dim, sizes)

    def squeeze(self, dim=None, *, axis=None):
        """Size-1 dims removed: all of them, or ``dim`` (PyTorch) or ``axis`` (NumPy), an int
        or a tuple; naming a dim whose size is not 1 raises, as in NumPy."""
        if axis is not None:
            dim = axis
        return _views.squeeze(self, dim)

    def unsqueeze(self, dim):
        return _views.unsqueeze(self, dim)

    def expand(self, *sizes):
        """Broadcast to ``sizes`` with stride 0 in the stretched dims (-1 keeps a size)."""
        return _views.expand(self, _shape_args(sizes))

    def expand_as(self, other):
        return _views.expand(self, other.shape)

    def broadcast_to(self, shape):
        return _vops.broadcast_to(self, shape)

    def narrow(self, dim, start, length):
        return _views.narrow(self, dim, start, length)

    def select(self, dim, index):
        return _views.select(self, dim, index)

    def split(self, split_size_or_sections, dim=0):
        return _views.split(self, split_size_or_sections, dim)

    def chunk(self, chunks, dim=0):
        return _views.chunk(self, chunks, dim)

    def unbind(self, dim=0):
        return _views.unbind(self, dim)

    def unfold(self, dimension, size, step):
        """All windows of ``size`` along ``dimension``, ``step`` apart, as a new last dim."""
        return _views.unfold(self, dimension, size, step)

    def diagonal(self, offset=0, axis1=0, axis2=1, *, dim1=None, dim2=None):
        """The diagonal of the 2-D slices over ``axis1`` and ``axis2`` (a view), NumPy's
        ``a.diagonal(offset, axis1, axis2)``; PyTorch's ``dim1=``/``dim2=`` name them too."""
        return _views.diagonal(
            self, offset, axis1 if dim1 is None else dim1, axis2 if dim2 is None else dim2
        )

    def flip(self, *dims):
        """Reverse along ``dims`` as a negative-stride view (PyTorch would copy)."""
        return _views.flip(self, _shape_args(dims) if dims else None)

    def as_strided(self, size, stride, storage_offset=None):
        return _vops.as_strided(self, size, stride, storage_offset)

    # -- shape ops that copy (PyTorch's names and arguments) ----------------------------------

    def repeat(self, *args, axis=None):
        """NumPy's ``a.repeat(repeats, axis=None)``: each element repeated (``strided.repeat``;
        ``[a, b]`` -> ``[a, a, b, b]``). A call NumPy would refuse, more than two sizes or a
        second argument that is no axis of this tensor, is PyTorch's ``x.repeat(*sizes)``,
        which tiles the whole tensor (``strided.tile``; ``x.tile(2, 3)`` says so plainly).

        Examples
        --------
        >>> import strided
        >>> x = strided.asarray([[1, 2], [3, 4]])
        >>> x.repeat(2)
        tensor([1, 1, 2, 2, 3, 3, 4, 4])
        >>> x.repeat(2, axis=1)
        tensor([[1, 1, 2, 2],
                [3, 3, 4, 4]])
        >>> x.repeat(1, 2, 1).shape  # three sizes: PyTorch's tiling
        (1, 4, 2)
        """
        if len(args) == 2 and axis is None and _is_axis(args[1], self.ndim):
            args, axis = args[:1], args[1]
        if len(args) == 1:
            return _shape.repeat(self, args[0], axis=axis)
        if axis is not None:
            raise TypeError(f"repeat: {len(args)} sizes and axis={axis!r}: give one repeats count")
        return _shape.torch_repeat(self, *args)

    def tile(self, *dims):
        """``strided.tile(self, dims)`` (``x.tile(2, 3)`` or ``x.tile((2, 3))``)."""
        return _shape.tile(self, _shape_args(dims))

    def repeat_interleave(self, repeats, dim=None):
        """Each element repeated: ``strided.repeat(self, repeats, axis=dim)``."""
        return _shape.repeat(self, repeats, axis=dim)

    def roll(self, shifts, dims=None):
        """``strided.roll(self, shifts, axis=dims)`` (PyTorch's argument names)."""
        return _shape.roll(self, shifts, axis=dims)

    def tril(self, diagonal=0):
        """``strided.tril(self, k=diagonal)`` (PyTorch's argument name)."""
        return _shape.tril(self, k=diagonal)

    def triu(self, diagonal=0):
        """``strided.triu(self, k=diagonal)`` (PyTorch's argument name)."""
        return _shape.triu(self, k=diagonal)

    @property
    def real(self):
        """The real parts of a complex tensor as a real view (the tensor itself if real)."""
        return _views.real_view(self) if self.dtype.kind == "c" else self

    @real.setter
    def real(self, values):
        """NumPy's ``a.real = v``: written into the real parts (all of a real tensor)."""
        self.real.copy_(values)

    @property
    def imag(self):
        """The imaginary parts of a complex tensor as a real view; of a real tensor, zeros of
        its dtype, as NumPy's ``a.imag`` (NumPy's are read-only; these a new tensor, so a
        write into them changes nothing)."""
        if self.dtype.kind != "c":
            return _creation.zeros_like(self)
        return _views.imag_view(self)

    @imag.setter
    def imag(self, values):
        """NumPy's ``a.imag = v``: written into the imaginary parts of a complex tensor."""
        if self.dtype.kind != "c":
            raise TypeError(
                f"imag: a {self.dtype.name} tensor has no imaginary part to set (as NumPy)"
            )
        _views.imag_view(self).copy_(values)

    # -- copies -------------------------------------------------------------------------------

    def contiguous(self):
        """Itself if row-major contiguous, else a row-major copy."""
        return _vops.contiguous(self)

    def clone(self):
        """A row-major copy sharing nothing with this tensor."""
        return _copying.contiguous_copy(self)

    # -- NumPy's ndarray methods that have other names here ----------------------------------------

    def copy(self, order="C"):
        """NumPy's ``a.copy(order="C")``: a copy laid out in ``order`` (Note [A copy's order])."""
        return _copy_in_order(self, self.dtype, order, "copy")

    def fill(self, value):
        """NumPy's ``a.fill(value)``: ``fill_(value)``, returning None as NumPy does."""
        self.fill_(value)

    def conj(self):
        """The complex conjugate; a real or bool tensor is returned as it is, as NumPy's
        ``a.conj()`` and PyTorch's ``x.conj()`` return theirs (the function ``strided.conj``
        is NumPy's ufunc: a copy, and int8 for bools, Note [Bools read as int8] in _iter.pyx).
        """
        return _ew.conj(self) if self.dtype.kind == "c" else self

    def conjugate(self):
        """NumPy's name for ``conj()``."""
        return self.conj()

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        """The sum along a diagonal (NumPy's ``a.trace``; see ``strided.trace``)."""
        from strided._ops.arrays import trace

        return trace(self, offset, axis1, axis2, dtype, out)

    def searchsorted(self, v, side="left", sorter=None):
        """Where ``v`` would go in this sorted 1-D tensor (NumPy's ``a.searchsorted``)."""
        if self.ndim != 1:
            raise ValueError(
                f"searchsorted: the tensor searched (self) must be 1-D, got shape {self.shape}"
            )
        return _ix.searchsorted(self, v, side=side, sorter=sorter)

    def partition(self, kth, axis=-1, kind="introselect", order=None):
        """NumPy's in-place ``a.partition(kth)``: afterwards element ``kth`` is where a sort
        would put it, smaller ones before, larger ones after (here: a full stable sort)."""
        from strided._ops.sets import partition

        self.copy_(partition(self, kth, axis=axis, kind=kind, order=order))

    def argpartition(self, kth, axis=-1, kind="introselect", order=None):
        """The positions that would partition this tensor (see ``partition``)."""
        from strided._ops.sets import argpartition

        return argpartition(self, kth, axis=axis, kind=kind, order=order)

    def choose(self, choices, out=None, mode="raise"):
        """NumPy's ``a.choose(choices)``: ``strided.choose(self, choices)``."""
        from strided._ops.placing import choose

        return choose(self, choices, out=out, mode=mode)

    def compress(self, condition, axis=None, out=None):
        """NumPy's ``a.compress(condition, axis)``: ``strided.compress(condition, self, axis)``."""
        from strided._ops.placing import compress

        return compress(condition, self, axis=axis, out=out)

    def put(self, indices, values, mode="raise"):
        """NumPy's ``a.put(indices, values)``: ``strided.put`` in place, returning None."""
        from strided._ops.placing import put

        put(self, indices, values, mode=mode)

    def byteswap(self, inplace=False):
        """NumPy's ``a.byteswap()``: each element's bytes in reverse order, read as the same
        dtype (a complex number's two parts each swapped); with ``inplace=True`` this tensor is
        overwritten and returned, as NumPy does."""
        parts = 2 if self.dtype.kind == "c" else 1
        n = self.dtype.itemsize // parts
        shape = self.shape
        b = self.contiguous().reshape(-1, 1).view("uint8").reshape(-1, parts, n).flip(-1)
        out = b.contiguous().reshape(-1, parts * n).view(self.dtype).reshape(shape)
        if inplace:
            self.copy_(out)
            return self
        return out

    @property
    def flat(self):
        """NumPy's ``a.flat``: the elements in row-major order, to read, assign and iterate
        (Note [Flat positions] in _flat.py)."""
        from strided._flat import FlatIter

        return FlatIter(self)

    @flat.setter
    def flat(self, values):
        self.flat[...] = values

    @property
    def flags(self):
        """NumPy's ``a.flags``: contiguity, ``owndata``; always writeable and aligned."""
        from strided._flat import Flags

        return Flags(self)

    def setflags(self, write=None, align=None, uic=None):
        """NumPy's ``a.setflags``: only what is already so (writeable, aligned) is accepted."""
        from strided._flat import check_flags_write

        check_flags_write(write=write, align=align, uic=uic)

    @property
    def base(self):
        """NumPy's ``a.base``: the tensor this one is a view of, or None when it owns its
        memory (``_base``: the first tensor over the storage, as PyTorch's)."""
        return self._base

    def tofile(self, fid, sep="", format="%s"):  # noqa: A002 - NumPy's keyword
        """NumPy's ``a.tofile``: the elements in C order to a file (binary, or text with
        ``sep``), through NumPy on the host; bfloat16 as ml_dtypes' bfloat16 bytes."""
        np.asarray(self.cpu()).tofile(fid, sep=sep, format=format)

    def dumps(self):
        """NumPy's ``a.dumps()``: this tensor pickled (``pickle.loads`` gives it back)."""
        return pickle.dumps(self)

    def dump(self, file):
        """NumPy's ``a.dump(file)``: this tensor pickled into ``file`` (a path or a binary
        file object); ``pickle.load`` reads it back."""
        if isinstance(file, (str, bytes)) or hasattr(file, "__fspath__"):
            with open(file, "wb") as f:
                pickle.dump(self, f)
        else:
            pickle.dump(self, file)

    def tobytes(self, order="C"):
        """The elements' bytes in ``order`` ("C" row-major, "F" column-major), as NumPy's; a
        device tensor is copied to the host first."""
        return np.asarray(self.cpu()).tobytes(order)

    def copy_(self, src):
        """Copy ``src`` (broadcast, cast to this dtype) into this tensor, in place."""
        if not isinstance(src, _core.TensorBase):
            src = _creation.asarray(src)
        return _copying.copy_(self, src)

    def fill_(self, value):
        """Set every element to ``value``, in place."""
        return _copying.fill_(self, value)

    def zero_(self):
        return _copying.fill_(self, 0)

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        """NumPy's ``a.astype``: a copy converted to ``dtype``, laid out in ``order`` (Note [A
        copy's order]); ``casting`` refuses a conversion NumPy's rule of that name refuses;
        ``copy=False`` returns self when nothing changes; ``subok`` is accepted (every result
        is a Tensor)."""
        d = as_dtype(dtype)
        if casting != "unsafe" and casting not in _CASTINGS:
            raise ValueError(f"astype: casting must be one of {_CASTINGS}, got {casting!r}")
        if casting != "unsafe" and not can_cast(self, d, casting=casting):
            raise TypeError(
                f"astype: cannot cast {self.dtype.name} to {d.name} according to the rule "
                f"casting={casting!r}"
            )
        if not copy and d is self.dtype and _order_holds(self, order):
            return self
        return _copy_in_order(self, d, order, "astype")

    def to(self, *args, dtype=None, device=None, copy=False):
        """``to(dtype)``, ``to(device)`` or both: self when nothing changes (and not copy)."""
        for a in args:
            if isinstance(a, (str, _core.Device)) and not _is_dtype_name(a):
                device = a
            else:
                dtype = a
        d = self.dtype if dtype is None else as_dtype(dtype)
        if device is not None and _core.as_device(device) is not self.device:
            # across devices: Note [Copies across devices] in strided/cuda/_copy.py
            out = _creation.empty(self.shape, dtype=d, device=device)
            return _copying.copy_(out, self)
        if d is self.dtype and not copy:
            return self
        return _copying.contiguous_copy(self, d)

    # PyTorch's dtype shorthands: ``x.half()`` is ``x.to(strided.float16)`` (self when it is
    # already that dtype), and so on
    def half(self):
        return self.to(_half_dtypes["float16"])

    def bfloat16(self):
        return self.to(_half_dtypes["bfloat16"])

    def float(self):
        return self.to(_half_dtypes["float32"])

    def double(self):
        return self.to(_half_dtypes["float64"])

    def cpu(self):
        """This tensor on the CPU (itself if it is there already)."""
        # the early return keeps float(x), int(x) and x.item() (which call cpu()) cheap: to()
        # first asks whether "cpu" names a dtype, and that refusal costs microseconds
        return self if self.device.is_cpu else self.to("cpu")

    def to_device(self, device, /, *, stream=None):
        """The Array API's spelling of ``to(device)``: this tensor on ``device`` (itself if it
        is there already). strided runs each device's kernels on one stream (CuPy's current
        one on a GPU), so ``stream`` must be None."""
        if stream is not None:
            raise ValueError(
                f"to_device: stream={stream!r} is not supported; strided copies on the "
                "device's current stream (pass stream=None)"
            )
        return self.to(device)

    def cuda(self, device=None):
        """This tensor on a GPU (``device``: "cuda", "cuda:N" or "cuda-emulated")."""
        if isinstance(device, int):
            device = f"cuda:{device}"
        d = _core.as_device("cuda" if device is None else device)
        if not d.is_cuda:
            raise ValueError(f"cuda(): {d} is not a CUDA device")
        return self.to(d)

    @property
    def __cuda_array_interface__(self):
        """Version 3 of the CUDA Array Interface, for a tensor on a real GPU (CuPy, Numba and
        PyTorch read it to share the memory without a copy)."""
        if self.device.type != "cuda":
            raise AttributeError(
                f"__cuda_array_interface__: the tensor is on {self.device}, not a GPU"
            )
        item = self.itemsize
        return {
            "shape": self.shape,
            "typestr": self.dtype.numpy.str,
            "data": (self.data_ptr(), not self.untyped_storage().writable),
            "strides": tuple(s * item for s in self.stride()),
            "version": 3,
            "stream": None,  # strided launches on CuPy's current stream (Note in cuda/_launch)
        }

    def numpy(self):
        """A NumPy array sharing this tensor's memory (CPU only)."""
        if not self.device.is_cpu:
            raise TypeError(f"numpy(): the tensor is on {self.device}; call .cpu() first")
        return np.asarray(self)

    def __array__(self, dtype=None, copy=None):
        if not self.device.is_cpu:
            raise TypeError(f"__array__: the tensor is on {self.device}; call .cpu() first")
        source = self
        if self.dtype.name == "bfloat16":
            # the buffer protocol cannot name bfloat16: export its bits, and let NumPy read
            # them as ml_dtypes' bfloat16 (Note [Half precision rows] in _dtype_table.py)
            if self.dtype.numpy is None:
                raise TypeError(
                    "__array__: NumPy has no bfloat16 dtype; install the ml_dtypes package "
                    "(pip install ml_dtypes) or convert first with t.astype('float32')"
                )
            source = _views.bits_view(self)
        if copy:
            arr = np.array(memoryview(source), copy=True)
        else:
            arr = np.asarray(memoryview(source))
        if source is not self:
            arr = arr.view(self.dtype.numpy)
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            if copy is False:
                raise ValueError(f"__array__: converting to {dtype} needs a copy")
            arr = arr.astype(dtype)
        return arr

    def tolist(self):
        """Nested Python lists of Python numbers (a CUDA tensor is copied to the host)."""
        return self.cpu().numpy().tolist()

    def item(self, *args):
        """The one element as a Python number; NumPy's ``a.item(i)`` (flat, row-major index)
        and ``a.item(i, j)`` (one index per dim) pick an element of a bigger tensor."""
        if args:
            if len(args) == 1 and isinstance(args[0], tuple):
                args = args[0]
            if len(args) == 1 and self.ndim != 1:
                n = operator.index(args[0])
                if not -self.numel() <= n < self.numel():
                    raise IndexError(
                        f"item(): index {n} is out of bounds for a tensor of {self.numel()} "
                        "elements"
                    )
                args = tuple(int(i) for i in np.unravel_index(n % self.numel(), self.shape))
            return _views.getitem(self, tuple(args)).item()
        if self.numel() != 1:
            raise ValueError(
                f"item(): only a tensor with one element can be converted to a "
                f"Python number; this one has shape {self.shape}"
            )
        return self.cpu().numpy().reshape(()).item()

    # -- Python protocols ---------------------------------------------------------------------

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(_views.unbind(self, 0))

    def __contains__(self, value):
        """``value in x``: whether any element equals ``value`` (NumPy's and PyTorch's rule,
        ``(x == value).any()``, so a row broadcasts against every row)."""
        return bool(_red.any(_ew.equal(self, value)))

    # ``Tensor[...]`` in annotations, as ``numpy.ndarray[...]``
    __class_getitem__ = classmethod(_types.GenericAlias)

    def _scalar(self, what):
        if self.numel() != 1:
            raise (ValueError if what == "bool" else TypeError)(
                f"{what}(): only a tensor with one element can be converted; this one has shape "
                f"{self.shape}"
                + (
                    " (the truth value of many elements is ambiguous: use .any() or .all())"
                    if what == "bool"
                    else ""
                )
            )
        return self.item()

    def __bool__(self):
        return bool(self._scalar("bool"))

    def __int__(self):
        return int(self._scalar("int"))

    def __float__(self):
        return float(self._scalar("float"))

    def __complex__(self):
        return complex(self._scalar("complex"))

    def __index__(self):
        if self.dtype.kind not in "iu" or self.ndim != 0:
            raise TypeError(
                f"only 0-d integer tensors can be used as an index, got "
                f"{self.dtype.name} with shape {self.shape}"
            )
        return operator.index(self.item())

    def __setitem__(self, index, value):
        if _ix.is_advanced(index):  # integer arrays, masks: see strided/_ops/indexing.py
            _ix.setitem(self, index, value)
            return
        target = _views.getitem(self, index)
        if isinstance(value, _core.TensorBase):
            _copying.copy_(target, value)
        elif isinstance(value, (bool, int, float, complex, np.generic)):
            _copying.fill_(target, value)
        else:
            _copying.copy_(target, _creation.asarray(value))

    def __array_namespace__(self, *, api_version=None):
        import strided  # see Note [Which Array API versions] in _info.py

        strided._info.check_api_version(api_version)

        return strided

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        from strided import _dlpack

        src = self.clone() if copy else self
        return _dlpack.to_dlpack(src, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        from strided import _dlpack

        return _dlpack.dlpack_device(self)

    def __dask_tokenize__(self):
        # Dask hashes every object that goes into a graph's names (``da.from_array(t)`` does
        # first); meeting its first tensor also registers strided with Dask's dispatch tables.
        # See Note [How Dask decides chunk types and meta] in strided/dask.py.
        from strided import dask as _dask

        return _dask._normalize_token(self)

    def __reduce_ex__(self, protocol):
        # Pickled as the bytes of a contiguous copy: views are not preserved (as NumPy). With
        # protocol 5 (Dask's and multiprocessing's) the bytes may travel out of band, uncopied,
        # as an ndarray's do; a CUDA tensor's bytes come to the host and go back to its device.
        host = self if self.device.is_cpu else self.cpu()
        arr = host.contiguous().numpy()
        data = pickle.PickleBuffer(arr) if protocol >= 5 else arr.tobytes()
        args = (data, self.shape, self.dtype.name, self.requires_grad)
        return (_rebuild, args if self.device.is_cpu else (*args, str(self.device)))

    def __copy__(self):
        return self.clone()  # as NumPy: copy.copy of an array copies its data

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        out = self.clone()
        out.requires_grad = self.requires_grad
        if self.grad is not None:
            out.grad = _pycopy.deepcopy(self.grad, memo)
        memo[id(self)] = out
        return out

    def __repr__(self):
        from strided import _format

        return _format.format_repr(self)

    __str__ = __repr__

    def explain(self):
        """A text picture of this view: storage cells, offset, strides, contiguity."""
        from strided import _explain

        return _explain.explain(self)

    # -- reductions: NumPy's positional order, PyTorch's keywords -----------------------------
    # See Note [Reduction methods: NumPy's positions, PyTorch's keywords] below the class.

    sum = _reduction_method(_red.sum, ("axis", "dtype", "out", "keepdims"), ("dim", "keepdim"))
    prod = _reduction_method(_red.prod, ("axis", "dtype", "out", "keepdims"), ("dim", "keepdim"))
    mean = _reduction_method(_red.mean, ("axis", "dtype", "out", "keepdims"), ("dim", "keepdim"))
    var = _reduction_method(
        _red.var, ("axis", "dtype", "out", "ddof", "keepdims"), ("dim", "unbiased", "keepdim")
    )
    std = _reduction_method(
        _red.std, ("axis", "dtype", "out", "ddof", "keepdims"), ("dim", "unbiased", "keepdim")
    )
    any = _reduction_method(_red.any, ("axis", "out", "keepdims"), ("dim", "keepdim"))
    all = _reduction_method(_red.all, ("axis", "out", "keepdims"), ("dim", "keepdim"))
    argmax = _reduction_method(_red.argmax, ("axis", "out"), ("dim", "keepdim"))
    argmin = _reduction_method(_red.argmin, ("axis", "out"), ("dim", "keepdim"))
    max = _reduction_method(_red.max, ("axis", "out", "keepdims"), ("dim", "keepdim"), True)
    min = _reduction_method(_red.min, ("axis", "out", "keepdims"), ("dim", "keepdim"), True)

    def logsumexp(self, dim=None, keepdim=None, **kwargs):
        return _red.logsumexp(self, dim=dim, keepdim=keepdim, **kwargs)

    def count_nonzero(self, dim=None, **kwargs):
        return _red.count_nonzero(
            self, axis=dim if dim is not None else kwargs.pop("axis", None), **kwargs
        )

    def cumsum(self, dim=None, dtype=None, **kwargs):
        """Running sums along ``dim``: see ``strided.cumsum``."""
        return _scan.cumsum(self, dim, dtype=dtype, **kwargs)

    def cumprod(self, dim=None, dtype=None, **kwargs):
        """Running products along ``dim``: see ``strided.cumprod``."""
        return _scan.cumprod(self, dim, dtype=dtype, **kwargs)

    def softmax(self, dim, dtype=None):
        return _red.softmax(self, dim, dtype=dtype)

    def log_softmax(self, dim, dtype=None):
        return _red.log_softmax(self, dim, dtype=dtype)

    # -- sorting (strided/_ops/sorting.py): NumPy's in-place sort, PyTorch's behind its keywords --

    def sort(self, axis=-1, kind=None, order=None, *, stable=None, dim=None, descending=None):
        """NumPy's ``a.sort(axis=-1, kind=None)``: sorts this tensor in place along ``axis``
        and returns None. PyTorch's ``x.sort(dim=-1, descending=False)`` (a call with ``dim=``
        or ``descending=``, or a bool second, ``x.sort(0, True)``) returns ``(values,
        indices)`` and leaves the tensor alone. Both are stable: see ``strided.sort``.

        Examples
        --------
        >>> import strided
        >>> a = strided.asarray([3, 1, 2])
        >>> a.sort()
        >>> a
        tensor([1, 2, 3])
        >>> strided.asarray([3, 1, 2]).sort(dim=0, descending=True)
        SortResult(values=tensor([3, 2, 1]), indices=tensor([0, 2, 1]))
        """
        if dim is not None or descending is not None or _is_flag(kind):
            if order is not None:
                raise TypeError("sort: order= (NumPy's structured fields) is not PyTorch's sort")
            descending = kind if _is_flag(kind) else bool(descending)
            d = axis if dim is None else dim
            return _sorting.sort_with_indices(self, d, descending, bool(stable))
        kwargs = {k: v for k, v in (("kind", kind), ("stable", stable)) if v is not None}
        if order is not None:
            raise TypeError(
                "sort: order= sorts a structured array by its fields; strided tensors have none"
            )
        if axis is None:
            raise ValueError(
                "sort: axis=None would sort a flattened copy, which cannot be written back in "
                "place (as NumPy's a.sort); use strided.sort(a, axis=None) for the copy"
            )
        self.copy_(_sorting.sort(self, axis=axis, **kwargs))

    def argsort(self, axis=-1, kind=None, order=None, *, stable=None, dim=None, descending=False):
        """The int64 positions that sort this tensor along ``axis`` (NumPy's arguments, or
        PyTorch's ``dim=``/``descending=``, also ``x.argsort(0, True)``); always stable."""
        if _is_flag(kind):
            descending, kind = kind, None
        if order is not None:
            raise TypeError(
                "argsort: order= sorts a structured array by its fields; strided tensors have none"
            )
        kwargs = {k: v for k, v in (("kind", kind), ("stable", stable)) if v is not None}
        if dim is not None:
            axis = dim
        return _sorting.argsort(self, axis=axis, descending=descending, **kwargs)

    def topk(self, k, dim=-1, largest=True, sorted=True):
        """``(values, indices)`` of the k largest (or smallest) along ``dim``: see strided.topk."""
        return _sorting.topk(self, k, dim, largest, sorted)

    # -- matrix products (strided/_ops/linalg.py) ---------------------------------------------

    __matmul__ = _la.matmul  # a @ b is matmul(a, b), without a frame of its own

    def __rmatmul__(self, other):
        return _la.matmul(other, self)

    def __imatmul__(self, other):
        # as NumPy: only when the product has this tensor's shape (computed aside, then copied)
        return _la.matmul(self, other, out=self)

    def matmul(self, other):
        """``self @ other``: see ``strided.matmul``."""
        return _la.matmul(self, other)

    def mm(self, mat2):
        """The matrix product of two 2-D tensors: see ``strided.mm``."""
        return _la.mm(self, mat2)

    def bmm(self, mat2):
        """The batched matrix product of two 3-D tensors: see ``strided.bmm``."""
        return _la.bmm(self, mat2)

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        """``beta * self + alpha * (mat1 @ mat2)``: see ``strided.addmm``."""
        return _la.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def dot(self, other, out=None):
        """NumPy's ``dot``: the dot product of two 1-D tensors (without conjugation, also
        PyTorch's ``dot``), the matrix product of 2-D ones, a product with a 0-d one, and for
        N-D the sum over the last dim of ``self`` and the second-to-last of ``other``; ``out=``
        as ``strided.dot``'s."""
        if out is not None:
            from strided._ops.products import dot

            return dot(self, other, out=out)
        other = other if isinstance(other, _core.TensorBase) else _creation.asarray(other)
        if self.ndim == 1 and other.ndim == 1:
            return _la.dot(self, other)
        if self.ndim == 0 or other.ndim == 0:
            return _ew.multiply(self, other)
        if other.ndim == 1 or (self.ndim <= 2 and other.ndim <= 2):
            return _la.matmul(self, other)
        return _la.tensordot(self, other, axes=([-1], [-2]))

    def round(self, decimals=0, *, out=None):
        """NumPy's ``x.round(decimals)``: see ``strided.round``."""
        return _ew.round(self, decimals, out=out)

    def __round__(self, ndigits=None):
        """Python's ``round(x)``: a 0-d tensor gives a Python number, as for a NumPy scalar."""
        if ndigits is None:
            return round(self._scalar("round"))
        return round(self._scalar("round"), ndigits)

    def __format__(self, spec):
        """``f"{loss:.3f}"``: a 0-d tensor formats as its Python scalar does (``f"{loss}"`` too,
        as a 0-d NumPy array); a bigger one only with an empty spec (its str), as NumPy's."""
        if self.ndim == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError(
                f"unsupported format string {spec!r} passed to Tensor.__format__ for a tensor of "
                f"shape {self.shape}: only 0-d tensors format as numbers"
            )
        return str(self)

    def __divmod__(self, other):
        return _ew.floor_divide(self, other), _ew.remainder(self, other)

    def __rdivmod__(self, other):
        return _ew.floor_divide(other, self), _ew.remainder(other, self)

    def outer(self, other):
        """The outer product of two 1-D tensors: see ``strided.outer``."""
        return _la.outer(self, other)

    def where(self, condition, other):
        """PyTorch's ``x.where(condition, y)``: ``strided.where(condition, x, y)``."""
        return _ew.where(condition, self, other)

    # -- indexing functions (strided/_ops/indexing.py), PyTorch's names and arguments -------

    def take(self, indices, axis=None, out=None, mode="raise"):
        """``strided.take(self, indices, axis, out, mode)`` (of the flattened tensor by
        default)."""
        return _ix.take(self, indices, axis=axis, out=out, mode=mode)

    def take_along_dim(self, indices, dim=None):
        """PyTorch's ``take_along_dim``: ``strided.take_along_axis`` (flattened if dim=None)."""
        if dim is None:
            return _ix.take_along_axis(self.reshape(-1), _creation.asarray(indices).reshape(-1))
        return _ix.take_along_axis(self, indices, axis=dim)

    def index_select(self, dim, index):
        """The slices along ``dim`` at the 1-D ``index``: see ``strided.index_select``."""
        return _ix.index_select(self, dim, index)

    def gather(self, dim, index):
        """``out[i][j] = self[index[i][j]][j]`` (dim 0): see ``strided.gather``."""
        return _ix.gather(self, dim, index)

    def scatter(self, dim, index, src):
        """A copy with ``copy[index[i][j]][j] = src[i][j]`` (dim 0): see ``strided.scatter``."""
        return _ix.scatter(self, dim, index, src)

    def scatter_(self, dim, index, src):
        """In-place ``scatter``."""
        return _ix.scatter(self, dim, index, src, inplace=True)

    def scatter_add(self, dim, index, src):
        """A copy with ``copy[index[i][j]][j] += src[i][j]``: see ``strided.scatter_add``."""
        return _ix.scatter_add(self, dim, index, src)

    def scatter_add_(self, dim, index, src):
        """In-place ``scatter_add``."""
        return _ix.scatter_add(self, dim, index, src, inplace=True)

    def index_add(self, dim, index, source, *, alpha=1):
        """A copy with ``alpha * source`` added at ``index`` along ``dim``: see
        ``strided.index_add``."""
        return _ix.index_add(self, dim, index, source, alpha=alpha)

    def index_add_(self, dim, index, source, *, alpha=1):
        """In-place ``index_add``."""
        return _ix.index_add(self, dim, index, source, alpha=alpha, inplace=True)

    def index_put(self, indices, values, accumulate=False):
        """A copy with ``copy[indices] = values`` (``accumulate``: ``+=`` adding repeats)."""
        return _ix.index_put(self, indices, values, accumulate)

    def index_put_(self, indices, values, accumulate=False):
        """``self[indices] = values`` in place (``accumulate``: ``+=`` adding repeats)."""
        return _ix.index_put(self, indices, values, accumulate, inplace=True)

    def masked_fill(self, mask, value):
        """A copy with ``value`` where ``mask`` is true: see ``strided.masked_fill``."""
        return _ix.masked_fill(self, mask, value)

    def masked_fill_(self, mask, value):
        """In-place ``masked_fill``."""
        return _ix.masked_fill(self, mask, value, inplace=True)

    def nonzero(self, *, as_tuple=None):
        """NumPy's ``a.nonzero()``: a tuple of int64 index tensors, one per dim (as
        ``strided.nonzero``). PyTorch's keyword picks PyTorch's form: ``as_tuple=False`` an
        (n, ndim) tensor of coordinates (``strided.argwhere``), ``as_tuple=True`` the tuple.
        See Note [Two nonzeros] in _ops/indexing.py."""
        if as_tuple is None:
            return _ix.nonzero(self)
        return _ix.torch_nonzero(self, as_tuple=as_tuple)

    def accessor(self):
        """A fixed-rank indexer that shows how kernels read elements: see TensorAccessor."""
        return TensorAccessor(self)

    def requires_grad_(self, requires_grad=True):
        self.requires_grad = requires_grad
        return self

    # ---- the autograd face ------------------------------------------------------------------
    # ``requires_grad``, ``grad`` and ``grad_fn`` are TensorBase's (_core.pyx). The methods that
    # need the graph call up into strided.autograd.variable when they run: autograd sits above
    # this module in the layers (DESIGN.md), so it is imported at the call, as PyTorch's
    # torch/_tensor.py calls torch.autograd, and nothing is added to this class from outside.

    @property
    def is_leaf(self):
        """True for tensors no recorded op made: user-made tensors, and results of ops on tensors
        that did not require grad. Only leaves get ``.grad`` filled by backward (see
        retain_grad)."""
        return self.grad_fn is None

    @property
    def retains_grad(self):
        """Whether backward keeps this non-leaf tensor's gradient in ``.grad``."""
        m = self._autograd_meta
        return bool(m is not None and m.retains_grad)

    def retain_grad(self):
        """Keep this non-leaf tensor's gradient in ``.grad`` during backward."""
        from strided.autograd import variable

        variable.retain_grad(self)

    def detach(self):
        """A new tensor over the same memory, with no history and not requiring grad (in-place
        writes to either are seen by both, and by the version counter)."""
        return _core._from_parts(
            self.untyped_storage(), self.storage_offset(), self.shape, self.stride(), self.dtype
        )

    def detach_(self):
        """Cut this tensor off its history, in place: it becomes a leaf that does not require
        grad."""
        self.grad_fn = None
        self._requires_grad = False
        return self

    def register_hook(self, hook):
        """``hook(grad)`` runs when this tensor's gradient is computed; it may return a new
        one."""
        from strided.autograd import variable

        return variable.register_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor)`` runs after the gradient was added into this leaf's ``.grad``."""
        from strided.autograd import variable

        return variable.register_post_accumulate_grad_hook(self, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Add the gradient of this tensor with respect to each leaf into the leaf's ``.grad``
        (see ``strided.autograd.backward``)."""
        from strided.autograd import engine

        engine.backward(self, gradient, retain_graph, create_graph, inputs)


class TensorAccessor:
    """The Python twin of the kernels' accessor (see Note [TensorAccessor] in _accessor.pxd).

    Made once from a tensor, it captures the rank, sizes, strides and offset, and from then on
    ``acc[i, j]`` is just ``storage[offset + i*stride0 + j*stride1]``: no shape logic, no view
    objects. ``acc.cell(i, j)`` shows the storage index it computes.

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(6).reshape(2, 3).T
    >>> acc = x.accessor()
    >>> acc.cell(2, 1), acc[2, 1]
    (5, 5)
    """

    def __init__(self, t):
        if not t.device.is_cpu:
            raise TypeError(f"accessor(): the tensor is on {t.device}; call .cpu() first")
        self.ndim = t.ndim
        self.sizes = t.shape
        self.strides = t.stride()
        self.offset = t.storage_offset()
        storage = self._storage = t.untyped_storage()
        # All of the storage as one flat array of this dtype: the "memory" the accessor reads.
        whole = _core._from_parts(storage, 0, (storage.nbytes // t.itemsize,), (1,), t.dtype)
        self._cells = np.asarray(whole)

    def cell(self, *index):
        """The storage cell of element ``index``: offset + sum(index[d] * stride[d])."""
        if len(index) == 1 and isinstance(index[0], tuple):
            index = index[0]
        if len(index) != self.ndim:
            raise IndexError(f"this accessor takes exactly {self.ndim} indices, got {len(index)}")
        for d, (i, n) in enumerate(zip(index, self.sizes, strict=True)):
            if not 0 <= i < n:
                raise IndexError(f"index {i} is out of bounds for dim {d} with size {n}")
        return self.offset + sum(i * s for i, s in zip(index, self.strides, strict=True))

    def __getitem__(self, index):
        return self._cells[self.cell(index if isinstance(index, tuple) else (index,))].item()

    def __setitem__(self, index, value):
        self._cells[self.cell(index if isinstance(index, tuple) else (index,))] = value
        self._storage.version += 1  # an in-place write, like any other (Note [The version counter])


# -- PyTorch-style methods: x.exp(), x.add(y), x.add_(y) -------------------------------------------
# Each elementwise op becomes a method that calls the function with self first, and an in-place
# twin (trailing underscore) that passes out=self. PyTorch's short names are aliases.

_METHOD_ALIASES = {
    "sub": "subtract",
    "mul": "multiply",
    "div": "divide",
    "true_divide": "divide",
    "neg": "negative",
    "eq": "equal",
    "ne": "not_equal",
    "lt": "less",
    "le": "less_equal",
    "gt": "greater",
    "ge": "greater_equal",
    "fmod": None,
    "clamp": "clip",
}


def _method(fn):
    if type(fn) is _types.FunctionType or type(fn).__name__ == "cython_function_or_method":
        # a Python or Cython function binds as a method itself: no frame of our own between
        # a.exp() and exp(a) (a tenth of a recorded op's cost: Note [Fewer objects per
        # recorded op] in autograd/_record.pyx)
        return fn

    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def _inplace_method(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, out=self, **kwargs)

    method.__name__ = method.__qualname__ = fn.__name__ + "_"
    method.__doc__ = f"In-place {fn.__name__}: the result is written into this tensor."
    return method


def _install_elementwise_methods():
    # real/imag are views (properties above); x.where(cond, y) means where(cond, x, y)
    names = {n: n for n in _ew.__all__ if n not in ("real", "imag", "where", "plan")}
    names.update({alias: target for alias, target in _METHOD_ALIASES.items() if target})
    for method_name, fn_name in names.items():
        fn = getattr(_ew, fn_name)
        if method_name not in Tensor.__dict__:
            setattr(Tensor, method_name, _method(fn))
        setattr(Tensor, method_name + "_", _inplace_method(fn))


def _is_dtype_name(a):
    if not isinstance(a, str):
        return False
    try:
        as_dtype(a)
    except TypeError:
        return False
    return True


_install_elementwise_methods()
_core._register_tensor_class(Tensor)
