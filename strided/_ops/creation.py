"""Creation functions: where tensors come from (Array API 2025.12 names, NumPy defaults).

``asarray`` is the front door: it turns lists, scalars, NumPy arrays, buffers, DLPack producers
and tensors into a tensor, sharing memory whenever it may. The others allocate a fresh Storage
(``_core``) and fill it with a kernel (``_cpu/copy.pyx.tp``).

Note [asarray and copy=]
~~~~~~~~~~~~~~~~~~~~~~~~
The Array API's ``copy`` argument: ``True`` always copies; ``False`` never does, and raises if
it would have to (a list, another dtype); ``None`` (the default) shares memory when it can. A
NumPy array, anything with the buffer protocol, and a DLPack producer can be shared; a nested
list never can. Nested lists are parsed by NumPy (C code, well kept, and it already knows what
"ragged" means); the result is then copied into a strided Storage so that the tensor owns aligned
memory.

Note [shape, three ways]
~~~~~~~~~~~~~~~~~~~~~~~~
``empty``, ``zeros`` and ``ones`` take their shape in each of the three spellings users write:

- ``zeros((2, 3))`` and ``zeros(shape=(2, 3))``: NumPy's and the Array API's, where ``shape`` is
  a positional-or-keyword parameter (scikit-learn passes it by keyword, and the Array API test
  suite checks the parameter's kind);
- ``zeros(2, 3)``: PyTorch's, each size a separate argument;
- ``zeros((2, 3), strided.int32)``: NumPy's dtype as the second positional argument.

So the signature is ``zeros(shape, *sizes, dtype=None, device=None)`` and ``_shape_and_dtype``
reads ``sizes``: all integers are PyTorch's further sizes; one non-integer is NumPy's dtype.
Anything else (a tuple and then sizes, a dtype given twice) is refused, naming what was given.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from strided import _core, _from_numpy
from strided._cpu import copy as _copy
from strided._dtype import as_dtype, get_default_dtype
from strided._dtype import bool_ as _bool
from strided._dtype import complex64 as _complex64
from strided._dtype import complex128 as _complex128
from strided._dtype import float64 as _float64
from strided._dtype import int64 as _int64
from strided._dtype import uint64 as _uint64
from strided._ops import copying as _copying

__all__ = [
    "asarray",
    "tensor",
    "empty",
    "zeros",
    "ones",
    "full",
    "empty_like",
    "zeros_like",
    "ones_like",
    "full_like",
    "arange",
    "linspace",
    "eye",
    "from_numpy",
    "from_dlpack",
]

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _shape_arg(shape):
    """Accept ``zeros(2, 3)`` and ``zeros((2, 3))`` alike."""
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        if not hasattr(shape[0], "__iter__"):
            return shape  # zeros(2.5): let check_shape name the bad size
        return tuple(shape[0])
    return tuple(shape)


def _shape_and_dtype(fn, shape, sizes, dtype):
    """The shape and dtype of ``fn(shape, *sizes, dtype=dtype)``; see Note [shape, three ways]."""
    if not sizes:
        return _shape_arg((shape,)), dtype
    # a type is never a size, though ``int`` has an __index__ (unbound): zeros(3, int) is NumPy's
    if all(hasattr(s, "__index__") and not isinstance(s, type) for s in sizes):
        if not hasattr(shape, "__index__"):
            raise TypeError(
                f"{fn}: give the shape as one tuple or as separate sizes, not both; "
                f"got {shape!r} and then {sizes!r}"
            )
        return (shape, *sizes), dtype
    if len(sizes) == 1 and dtype is None:
        return _shape_arg((shape,)), sizes[0]  # NumPy's zeros(shape, dtype)
    if len(sizes) == 1:
        raise TypeError(f"{fn}: dtype given twice, as {sizes[0]!r} and as dtype={dtype!r}")
    raise TypeError(
        f"{fn}: expected a shape, then more integer sizes (zeros(2, 3)) or one dtype "
        f"(zeros((2, 3), strided.int32)); got {(shape, *sizes)!r}"
    )


def _check_device(device):
    """The Device for ``device=``; for a CUDA device, also check now that it can be used (CuPy
    and a GPU for "cuda", g++ for "cuda-emulated"), so the error names what is missing."""
    d = _core.as_device(device)
    if d.is_cuda:
        from strided.cuda import backend_for  # the backend below; loaded only when asked for

        backend_for(d)
    return d


def _on(t, device):
    """``t`` moved to ``device`` when one is given (creation functions build some tensors on the
    CPU, then copy them over in one transfer)."""
    if device is None or _core.as_device(device).is_cpu:
        return t
    return t.to(device)


# =============================================================================================
# From NumPy, buffers and DLPack: sharing memory
# =============================================================================================


def from_numpy(array):
    """A tensor sharing ``array``'s memory (any strides, negative ones included).

    Writes through either are seen by the other; the array stays alive as long as the tensor.

    Examples
    --------
    >>> import numpy as np, strided
    >>> a = np.arange(6.0).reshape(2, 3)[:, ::-1]
    >>> t = strided.from_numpy(a)
    >>> t.stride()
    (3, -1)
    >>> a[0, 0] = 100.0; t[0, 0].item()
    100.0
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy expects a numpy.ndarray, got {type(array).__name__}")
    return _from_numpy.from_numpy_array(array)


def from_dlpack(x, /, *, device=None, copy=None):
    """A tensor sharing the memory of ``x``, any object with ``__dlpack__`` (NumPy, PyTorch,
    CuPy, JAX...), or a DLPack capsule.

    Examples
    --------
    >>> import numpy as np, strided
    >>> a = np.arange(4.0)
    >>> t = strided.from_dlpack(a)
    >>> a[0] = 7.0; t[0].item()
    7.0
    """
    from strided import _dlpack

    if device is not None:
        _check_device(device)
    if type(x).__name__ == "PyCapsule":
        t = _dlpack.from_dlpack_capsule(x)
    else:
        if not hasattr(x, "__dlpack__"):
            raise TypeError(
                f"from_dlpack: {type(x).__name__} has no __dlpack__ method; use asarray()"
            )
        try:
            capsule = x.__dlpack__(max_version=(1, 0), copy=copy)
        except TypeError:  # a producer from before DLPack 1.0 knows no keywords
            capsule = x.__dlpack__()
        t = _dlpack.from_dlpack_capsule(capsule)
    if copy:
        t = t.clone()
    return t


def _from_cuda_array_interface(obj):
    """A tensor sharing the GPU memory that ``obj`` describes with ``__cuda_array_interface__``
    (version 2 or 3: shape, typestr, data pointer, strides in bytes or None)."""
    cai = obj.__cuda_array_interface__
    shape = tuple(cai["shape"])
    d = as_dtype(np.dtype(cai["typestr"]))
    ptr, readonly = cai["data"]
    item = d.itemsize
    if cai.get("strides") is None:
        strides, acc = [], 1
        for n in reversed(shape):
            strides.append(acc)
            acc *= n
        strides = tuple(reversed(strides))
    else:
        if any(s % item for s in cai["strides"]):
            raise ValueError(
                f"__cuda_array_interface__: strides {cai['strides']} are not "
                f"multiples of the itemsize {item}"
            )
        strides = tuple(s // item for s in cai["strides"])
    lo = sum((n - 1) * s for n, s in zip(shape, strides, strict=True) if s < 0 and n > 0)
    hi = sum((n - 1) * s for n, s in zip(shape, strides, strict=True) if s > 0 and n > 0)
    numel = math.prod(shape)
    nbytes = (hi - lo + 1) * item if numel else 0
    dev_index = 0
    try:
        dev_index = obj.device.id  # CuPy
    except AttributeError:
        pass
    storage = _core.Storage._wrap(ptr + lo * item, nbytes, obj, f"cuda:{dev_index}", not readonly)
    return _core._from_parts(storage, -lo, shape, strides, d)


# =============================================================================================
# asarray. See Note [asarray and copy=].
# =============================================================================================


def _scalar_dtype(x):
    if isinstance(x, bool):
        return _bool
    if isinstance(x, int):
        if _INT64_MIN <= x <= _INT64_MAX:
            return _int64
        if 0 <= x < 2**64:
            return _uint64
        raise OverflowError(f"the Python int {x} does not fit in int64 or uint64")
    if isinstance(x, float):
        return get_default_dtype()
    return _complex128 if get_default_dtype() is _float64 else _complex64


def _ragged_path(obj, path=()):
    """Where a nested list stops being rectangular: (path, lengths) for the error message."""
    if not isinstance(obj, (list, tuple)):
        return None
    lens = [len(x) if isinstance(x, (list, tuple)) else None for x in obj]
    if len(set(lens)) > 1:
        return path, lens
    for i, x in enumerate(obj):
        found = _ragged_path(x, path + (i,))
        if found:
            return found
    return None


def _first_big_int(obj):
    """The first Python int in nested lists that fits neither int64 nor uint64, or None."""
    if isinstance(obj, (list, tuple)):
        for x in obj:
            found = _first_big_int(x)
            if found is not None:
                return found
    elif isinstance(obj, int) and not isinstance(obj, bool) and not (_INT64_MIN <= obj < 2**64):
        return obj
    return None


def _from_nested(obj, dtype):
    """Parse nested lists/tuples of scalars (and 0-d tensors) through NumPy."""
    try:
        arr = np.array(obj, dtype=None if dtype is None else dtype.numpy)
    except ValueError as e:
        where = _ragged_path(obj)
        if where is not None:
            path, lens = where
            at = "".join(f"[{i}]" for i in path) or "the top level"
            raise ValueError(
                f"asarray: ragged nested sequence: the items of {at} have different lengths "
                f"{lens}; every row must have the same length"
            ) from None
        raise ValueError(f"asarray: cannot make a tensor from this data: {e}") from None
    except OverflowError as e:
        raise OverflowError(f"asarray: {e}") from None
    if arr.dtype == object:
        where = _ragged_path(obj)
        if where is not None:
            path, lens = where
            at = "".join(f"[{i}]" for i in path) or "the top level"
            raise ValueError(
                f"asarray: ragged nested sequence: the items of {at} have different lengths "
                f"{lens}; every row must have the same length"
            )
        big = _first_big_int(obj)
        if big is not None:
            raise OverflowError(f"asarray: the Python int {big} does not fit in int64 or uint64")
        raise TypeError("asarray: the data holds objects that are not numbers")
    if dtype is None:
        if arr.dtype.kind == "f" and arr.dtype != get_default_dtype().numpy:
            arr = arr.astype(get_default_dtype().numpy)
        elif arr.dtype.kind == "c" and get_default_dtype() is not _float64:
            arr = arr.astype(np.complex64)
        elif arr.dtype.kind == "U" or arr.dtype.kind == "S":
            raise TypeError("asarray: strings are not numbers")
    return arr


def _copy_numpy(arr, dtype):
    """A fresh tensor holding ``arr``'s values (cast to ``dtype``)."""
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    try:
        src = from_numpy(arr)
    except ValueError:
        # Strides or address not a multiple of the itemsize (a bytes object's payload, a
        # view at an odd offset): NumPy's fresh allocation is aligned.
        src = from_numpy(np.array(arr, order="C", copy=True))
    return _copying.contiguous_copy(src, dtype if dtype is not None else src.dtype)


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """Convert ``obj`` to a tensor: a tensor, NumPy array, buffer, DLPack producer, Python
    scalar or nested sequence. Shares memory when it can and ``copy`` allows (see Note
    [asarray and copy=]).

    Examples
    --------
    >>> import strided
    >>> strided.asarray([[1, 2], [3, 4]]).dtype
    strided.int64
    >>> strided.asarray([1.5, 2]).dtype
    strided.float64
    >>> strided.asarray([1, 2], dtype="float32")
    tensor([1., 2.], dtype=strided.float32)
    """
    if type(obj) is np.ndarray and dtype is None and device is None and not copy:
        # the fast path for the most common call: share a NumPy array's memory as it is
        try:
            return _from_numpy.from_numpy_array(obj)
        except (TypeError, ValueError):
            pass  # an unsupported dtype or odd strides: the general path explains or copies
    if type(obj) in (list, tuple) and device is None and (copy is None or copy is True):
        # the other common call, a literal such as [1.0, 2.0]: straight to the nested-sequence
        # branch below, past the checks for protocols a list does not have
        return _from_sequence(obj, None if dtype is None else as_dtype(dtype))
    dev = _check_device(device)
    want = None if dtype is None else as_dtype(dtype)
    if copy not in (None, True, False):
        raise ValueError(f"asarray: copy must be True, False or None, got {copy!r}")
    if hasattr(obj, "__cuda_array_interface__") and not isinstance(obj, _core.TensorBase):
        obj = _from_cuda_array_interface(obj)  # a CuPy (or Numba, PyTorch) array: zero-copy
    if device is not None and (not isinstance(obj, _core.TensorBase) or obj.device is not dev):
        if copy is False:
            raise ValueError(
                f"asarray: putting the data on {dev} needs a copy, and copy=False forbids it"
            )
        src = obj if isinstance(obj, _core.TensorBase) else asarray(obj, dtype=want)
        return src.to(dev, dtype=want, copy=True)

    if isinstance(obj, _core.TensorBase):
        if want is None or want is obj.dtype:
            return obj.clone() if copy else obj
        if copy is False:
            raise ValueError(
                f"asarray: converting {obj.dtype.name} to {want.name} needs a copy, and "
                "copy=False forbids it"
            )
        return _copying.contiguous_copy(obj, want)

    if isinstance(obj, (bool, int, float, complex)) and not isinstance(obj, np.generic):
        if copy is False:
            raise ValueError("asarray: a Python scalar cannot be viewed without a copy")
        d = want if want is not None else _scalar_dtype(obj)
        out = _core._empty((), d)
        _copying.fill_(out, obj)
        return out

    if isinstance(obj, (np.ndarray, np.generic)):
        arr = np.asarray(obj)
        try:
            as_dtype(arr.dtype)
            supported = arr.dtype.isnative
        except TypeError:
            supported = False
        if not supported:
            if copy is False:
                raise ValueError(f"asarray: NumPy dtype {arr.dtype} needs a conversion copy")
            if want is None:
                raise TypeError(
                    f"asarray: NumPy dtype {arr.dtype} is not supported; pass dtype= to convert"
                )
            return _copy_numpy(arr.astype(want.numpy), want)
        if isinstance(obj, np.generic) or copy:
            return _copy_numpy(arr, want)
        shared = want is None or want.numpy == arr.dtype
        if shared:
            try:
                return from_numpy(arr)
            except ValueError:  # strides or address not a multiple of the itemsize
                if copy is False:
                    raise
                return _copy_numpy(arr, want)
        if copy is False:
            raise ValueError(
                f"asarray: converting NumPy {arr.dtype} to {want.name} needs a copy, and "
                "copy=False forbids it"
            )
        return _copy_numpy(arr, want)

    if hasattr(obj, "__dlpack__") and not isinstance(obj, (list, tuple)):
        t = from_dlpack(obj)
        return asarray(t, dtype=want, copy=copy)

    if isinstance(obj, (bytes, bytearray, memoryview)) or _has_buffer(obj):
        arr = np.asarray(memoryview(obj))
        return asarray(arr, dtype=want, copy=copy)

    if isinstance(obj, (list, tuple)) or hasattr(obj, "__len__") and hasattr(obj, "__getitem__"):
        if copy is False:
            raise ValueError("asarray: a nested sequence cannot be viewed without a copy")
        return _from_sequence(obj, want)

    if hasattr(obj, "__array__"):
        return asarray(np.asarray(obj), dtype=want, copy=copy)

    raise TypeError(
        f"asarray: cannot make a tensor from a {type(obj).__name__}; pass a number, a nested "
        "list, a NumPy array, a buffer or an object with __dlpack__"
    )


def _from_sequence(obj, want):
    """A fresh tensor from a nested sequence, parsed by NumPy (tensors inside are read through
    their ``__array__``)."""
    arr = _from_nested(obj, want)
    # ``arr`` is a fresh array nobody else holds: the tensor may keep its memory as it is.
    if arr.dtype.isnative and (want is None or arr.dtype == want.numpy):
        return _from_numpy.from_numpy_array(arr)
    return _copy_numpy(arr, want)


def _has_buffer(obj):
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def tensor(data, *, dtype=None, device=None, requires_grad=False):
    """PyTorch's ``torch.tensor``: always a copy of ``data``.

    Examples
    --------
    >>> import strided
    >>> strided.tensor([[1, 2], [3, 4]]).shape
    (2, 2)
    """
    t = asarray(data, dtype=dtype, device=device, copy=True)
    if requires_grad:
        t.requires_grad = True
    return t


# =============================================================================================
# Fresh tensors
# =============================================================================================


def _dtype_or(dtype, default):
    return default if dtype is None else as_dtype(dtype)


def empty(shape, *sizes, dtype=None, device=None):
    """An uninitialised tensor of ``shape`` (values are whatever the memory held). The shape
    may be one tuple, a keyword or separate sizes; see Note [shape, three ways].

    Examples
    --------
    >>> import strided
    >>> strided.empty(shape=(2, 3)).shape
    (2, 3)
    """
    shape, dtype = _shape_and_dtype("empty", shape, sizes, dtype)
    _check_device(device)
    return _core._empty(shape, _dtype_or(dtype, get_default_dtype()), device)


def zeros(shape, *sizes, dtype=None, device=None):
    """A tensor of zeros. Large ones cost no memset: fresh mmap'd pages are already zero.
    The shape may be one tuple, a keyword or separate sizes; see Note [shape, three ways].

    Examples
    --------
    >>> import strided
    >>> strided.zeros(2, 2)
    tensor([[0., 0.],
            [0., 0.]])
    """
    shape, dtype = _shape_and_dtype("zeros", shape, sizes, dtype)
    _check_device(device)
    return _core._empty(shape, _dtype_or(dtype, get_default_dtype()), device, True)


def ones(shape, *sizes, dtype=None, device=None):
    """A tensor of ones. The shape may be one tuple, a keyword or separate sizes; see Note
    [shape, three ways].

    Examples
    --------
    >>> import strided
    >>> strided.ones(3, dtype="int32")
    tensor([1, 1, 1], dtype=strided.int32)
    """
    shape, dtype = _shape_and_dtype("ones", shape, sizes, dtype)
    return full(shape, 1, dtype=_dtype_or(dtype, get_default_dtype()), device=device)


def full(shape, fill_value, *, dtype=None, device=None):
    """A tensor of ``shape`` filled with ``fill_value``; its dtype follows the value when not
    given (bool, int64, the default float, or complex), as in NumPy.

    Examples
    --------
    >>> import strided
    >>> strided.full((2,), 7)
    tensor([7, 7])
    """
    _check_device(device)
    if dtype is None:
        if isinstance(fill_value, _core.TensorBase):
            d = fill_value.dtype
        elif isinstance(fill_value, np.generic):
            d = as_dtype(fill_value.dtype)
        else:
            d = _scalar_dtype(fill_value)
    else:
        d = as_dtype(dtype)
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    out = _core._empty(shape, d, device)
    _copying.fill_(out, fill_value)
    return out


def _like(x, dtype, device, shape=None):
    """The shape, dtype and device of a ``*_like(x)`` result: x's, unless given (NumPy's
    ``shape=`` too, an int or a tuple)."""
    if not isinstance(x, _core.TensorBase):
        x = asarray(x)
    shape = x.shape if shape is None else _shape_arg((shape,))
    return shape, (x.dtype if dtype is None else as_dtype(dtype)), (device or x.device)


def empty_like(x, /, dtype=None, *, device=None, shape=None):
    """An uninitialised tensor with x's shape (and dtype and device unless given)."""
    shape, d, dev = _like(x, dtype, device, shape)
    return empty(shape, dtype=d, device=dev)


def zeros_like(x, /, dtype=None, *, device=None, shape=None):
    """Zeros with x's shape (and dtype and device unless given; NumPy's positional dtype and
    ``shape=`` too).

    Examples
    --------
    >>> import strided
    >>> strided.zeros_like(strided.ones((2, 3)), "int32", shape=(3,))
    tensor([0, 0, 0], dtype=strided.int32)
    """
    shape, d, dev = _like(x, dtype, device, shape)
    return zeros(shape, dtype=d, device=dev)


def ones_like(x, /, dtype=None, *, device=None, shape=None):
    """Ones with x's shape (and dtype and device unless given)."""
    shape, d, dev = _like(x, dtype, device, shape)
    return ones(shape, dtype=d, device=dev)


def full_like(x, /, fill_value, dtype=None, *, device=None, shape=None):
    """``fill_value`` everywhere, with x's shape (and dtype and device unless given)."""
    shape, d, dev = _like(x, dtype, device, shape)
    return full(shape, fill_value, dtype=d, device=dev)


# =============================================================================================
# Ranges
# =============================================================================================


def _number(x, name):
    if isinstance(x, _core.TensorBase):
        if x.ndim != 0:
            raise TypeError(f"{name} must be a scalar, got a tensor of shape {x.shape}")
        return x.item()
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"{name} must be a real number, got {x!r}")
    return x


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    """Evenly spaced values in [start, stop): ``start + i*step`` for i in range(n).

    Integer arguments give int64, any float gives the default float dtype, as in NumPy.

    Examples
    --------
    >>> import strided
    >>> strided.arange(5)
    tensor([0, 1, 2, 3, 4])
    >>> strided.arange(1.0, 2.0, 0.25)
    tensor([1.  , 1.25, 1.5 , 1.75])
    """
    dev = _check_device(device)
    start = _number(start, "start")
    step = _number(step, "step")
    if stop is None:
        start, stop = 0, start
    else:
        stop = _number(stop, "stop")
    if step == 0:
        raise ValueError("arange: step must not be zero")
    all_int = all(isinstance(v, int) for v in (start, stop, step))
    if dtype is None:
        d = _int64 if all_int else get_default_dtype()
    else:
        d = as_dtype(dtype)
    if d.kind in "bc":
        raise TypeError(f"arange: dtype {d.name} is not supported; use an integer or float dtype")
    if d.kind == "f" and d.itemsize == 2:
        # float16/bfloat16: each value computed in float64, rounded once (the fill kernels have
        # no half loops: Note [Half precision through float32] in _cpu/half.py)
        return arange(start, stop, step, dtype="float64", device=device).astype(d)
    if all_int:
        n = max(0, -((start - stop) // step))  # ceil((stop - start) / step) in exact ints
    else:
        n = max(0, math.ceil((stop - start) / step))
    out = _core._empty((n,), d, dev)
    if n:
        if all_int and d.kind in "iu":
            lo, hi = (start, start + (n - 1) * step)
            if not (_INT64_MIN <= min(lo, hi) and max(lo, hi) <= _INT64_MAX):
                raise OverflowError("arange: values exceed the int64 range")
        if dev.is_cpu:
            _copy.arange_fill(out, start, step)
        else:
            from strided.cuda import _copy as cuda_copy

            cuda_copy.arange_fill(out, start, step)
    return out


def linspace(start, stop, /, num=50, *, dtype=None, device=None, endpoint=True):
    """``num`` evenly spaced values from start to stop (included unless ``endpoint=False``);
    50 by default, as NumPy's (the Array API and PyTorch ask for ``num``).

    Computed in float64 (complex: real and imaginary parts separately, as two real views) and
    cast to ``dtype`` (default float, or complex for complex endpoints).

    Examples
    --------
    >>> import strided
    >>> strided.linspace(0, 1, 5)
    tensor([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    _check_device(device)
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"linspace: num must be >= 0, got {num}")
    is_complex = isinstance(start, complex) or isinstance(stop, complex)
    if dtype is None:
        d = _scalar_dtype(1j) if is_complex else get_default_dtype()
    else:
        d = as_dtype(dtype)
    if is_complex or d.kind == "c":
        start, stop = complex(start), complex(stop)
        work = _core._empty((num,), _complex128)
        _linspace_into(work.real, start.real, stop.real, endpoint)
        _linspace_into(work.imag, start.imag, stop.imag, endpoint)
    else:
        work = _core._empty((num,), _float64)
        _copy.linspace_fill(work, float(start), float(stop), endpoint)
        if d.kind in "iu":
            # NumPy 2 rounds toward -inf for integer dtypes (a cast alone truncates toward 0);
            # floored in place through a NumPy view until strided has its own floor kernel.
            np.floor(work.numpy(), out=work.numpy())
    return _on(work if work.dtype is d else _copying.contiguous_copy(work, d), device)


def _linspace_into(view, start, stop, endpoint):
    tmp = _core._empty(view.shape, _float64)
    _copy.linspace_fill(tmp, start, stop, endpoint)
    _copying.copy_(view, tmp)


def eye(n_rows, n_cols=None, /, k=0, dtype=None, *, device=None):
    """A 2-D tensor with ones on diagonal ``k`` and zeros elsewhere. ``k`` and ``dtype`` may be
    given by position, as NumPy allows (``eye(3, 3, 1)``); a ``k`` beyond the matrix, however
    far, gives all zeros, as in NumPy.

    Examples
    --------
    >>> import strided
    >>> strided.eye(2, 3, k=1, dtype="int8")
    tensor([[0, 1, 0],
            [0, 0, 1]], dtype=strided.int8)
    """
    _check_device(device)
    n_cols = n_rows if n_cols is None else n_cols
    out = _core._empty((n_rows, n_cols), _dtype_or(dtype, get_default_dtype()), None, True)
    k = operator.index(k)
    if -out.shape[0] < k < out.shape[1]:  # else no element is on the diagonal (and k may not
        _copy.eye_fill(out, k)  # fit the kernel's Py_ssize_t: the Array API suite tries 2**63)
    return _on(out, device)
