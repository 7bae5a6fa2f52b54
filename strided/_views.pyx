"""View ops: new tensors over the same storage, made by arithmetic on sizes and strides alone.

Not one byte of data is read or written in this file. Each function computes a new (sizes,
strides, offset) from the old ones and calls ``make_view`` (``_core``). PyTorch keeps the same
functions in ``aten/src/ATen/native/TensorShape.cpp``. See Note [Storage and views] in _core.pyx.

Note [view versus reshape]
~~~~~~~~~~~~~~~~~~~~~~~~~~
``view(shape)`` must never copy. It works when each group of old dims that the new shape merges
or splits is itself laid out like one contiguous block (``stride[d] == size[d+1] * stride[d+1]``
inside the group). ``compute_view_strides`` is PyTorch's ``computeStride``: it walks the old dims
from the innermost, cutting them into such *chunks*, and fits the new dims onto each chunk. When
a new dim would straddle two chunks there is no stride that works, and ``view`` raises, naming
the dims of the chunk boundary. ``reshape`` tries exactly the same rule and copies only when it
fails, so ``reshape`` of a transposed matrix copies and ``reshape`` of a stepped vector may not.
"""

from strided._core cimport (
    MAX_DIMS,
    TensorBase,
    check_shape,
    is_contiguous_c,
    make_view,
    make_view_dtype,
    normalize_dim,
)
from strided._dtype cimport (
    DType,
    dtype_from_num,
    kComplex64,
    kComplex128,
    kFloat32,
    kFloat64,
    kUInt16,
)

import operator

import numpy as np

from strided import _dispatch

# Note [Views through the Autograd key]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A view of a tensor that requires grad must be recorded (a ViewNode, autograd/recording.py),
# whoever asks for it: a Tensor method, an _ops module that bound the function long ago, a
# formula. So every view op below is a dispatcher op (registered for the CPU and CUDA keys at
# the end of this file: a view is metadata, the same code on every device), and each function
# starts with one test, ``_to_autograd(t)``. For a tensor that does not require grad (nearly
# every call) that is one C comparison and the view is computed at once, without the
# dispatcher; a program that never uses autograd pays nothing more. For one that does, with grad
# mode on, the call goes through ``_dispatch.call``, whose Autograd key (autograd/recording.py's
# view kernel) runs this same function with grad mode off, where the test is false, and records
# the view. Views that other views are made of (select is a getitem, chunk a split) are computed
# inside that one call, with grad mode off: one node per view the caller asked for.
cdef object _grad_mode = None  # autograd's grad-mode state, once autograd is active


def _set_grad_mode(state):
    """Called once by strided.autograd when it activates (a higher layer registering with a
    lower one, DESIGN.md): ``state.enabled`` is the grad mode of the calling thread."""
    global _grad_mode
    _grad_mode = state


cdef inline bint _to_autograd(TensorBase t) except -1:
    """Does this view call belong to the Autograd key? See Note [Views through the Autograd
    key]."""
    return t._requires_grad and _grad_mode is not None and _grad_mode.enabled


cdef inline Py_ssize_t _dim(TensorBase t, object d, str argname="dim") except? -1:
    # ``type(d) is int`` first: the common case skips a Python-level operator.index call.
    return normalize_dim(<Py_ssize_t>d if type(d) is int else operator.index(d), t._ndim,
                         argname)


# =============================================================================================
# Basic indexing: ints, slices, None, Ellipsis
# =============================================================================================

cdef inline bint _is_int_like(object x):
    """Python ints (not bools), NumPy integers, 0-d integer tensors and arrays, and anything else
    with ``__index__``, as NumPy accepts."""
    if isinstance(x, bool):
        return False
    if isinstance(x, int):
        return True
    if isinstance(x, TensorBase):
        return (<TensorBase>x)._ndim == 0 and (<TensorBase>x).dtype.kind in "iu"
    if isinstance(x, np.ndarray):
        return x.ndim == 0 and x.dtype.kind in "iu"
    return hasattr(type(x), "__index__") and not isinstance(x, np.bool_)


cdef object _advanced = None


def _register_advanced_indexing(fn):
    """Called once by strided/_ops/indexing.py: ``fn(t, index)`` computes ``t[index]`` for any
    index that is not basic (integer arrays, masks, bools: a copy, not a view). It is called
    from the one branch below that sees such an item, so basic indexing pays nothing for it."""
    global _advanced
    _advanced = fn


cdef object _advanced_error(object index):
    return IndexError(
        f"index {index!r}: only basic indexing (ints, slices, None, ...) is available; "
        "import strided for integer-array and boolean-mask indexing")


cpdef TensorBase getitem(TensorBase t, object index):
    """``t[index]`` for basic indices: a view, never a copy.

    Each int removes a dim (and moves the offset), each slice keeps a dim with a new size,
    stride ``stride * step`` and offset, ``None`` inserts a size-1 dim, ``...`` stands for as many
    full slices as needed.
    """
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef Py_ssize_t offset = t._offset, i, start, stop, step, n, length
    cdef int src = 0, out = 0, consumed = 0, k, nitems, ellipsis_at = -1
    cdef object given = index
    if not isinstance(index, tuple):
        index = (index,)
    nitems = len(index)
    # First pass: how many dims do the indices consume, and where is the Ellipsis?
    for k in range(nitems):
        item = index[k]
        if item is None:
            continue
        if type(item) is slice or type(item) is int:
            consumed += 1
        elif item is Ellipsis:
            if ellipsis_at >= 0:
                raise IndexError("an index can only have a single ellipsis ('...')")
            ellipsis_at = k
        elif _is_int_like(item):
            consumed += 1
        elif _advanced is not None:
            return _advanced(t, given)
        else:
            raise _advanced_error(index)
    if _to_autograd(t):  # a basic index: Note [Views through the Autograd key]
        return _dispatch.call("getitem", t, given)
    if consumed > t._ndim:
        raise IndexError(
            f"too many indices for a tensor of shape {t.shape}: {consumed} were given")
    for k in range(nitems):
        item = index[k]
        if out >= MAX_DIMS:
            raise IndexError(f"indexing would give more than {MAX_DIMS} dims")
        if item is None:
            sizes[out] = 1
            strides[out] = 0
            out += 1
        elif item is Ellipsis:
            for _ in range(t._ndim - consumed):
                sizes[out] = t._sizes[src]
                strides[out] = t._strides[src]
                out += 1
                src += 1
        elif type(item) is slice:
            n = t._sizes[src]
            start, stop, step = (<slice>item).indices(n)
            if step > 0:
                length = (stop - start + step - 1) // step if stop > start else 0
            else:
                length = (start - stop - step - 1) // (-step) if start > stop else 0
            if length > 0:
                offset += start * t._strides[src]
            sizes[out] = length
            strides[out] = t._strides[src] * step
            out += 1
            src += 1
        else:
            i = <Py_ssize_t>item if type(item) is int else operator.index(item)
            n = t._sizes[src]
            if i < -n or i >= n:
                raise IndexError(
                    f"index {i} is out of bounds for dim {src} with size {n}")
            if i < 0:
                i += n
            offset += i * t._strides[src]
            src += 1
    # Dims not named by the index are kept whole (an implicit trailing ...).
    while src < t._ndim:
        if out >= MAX_DIMS:
            raise IndexError(f"indexing would give more than {MAX_DIMS} dims")
        sizes[out] = t._sizes[src]
        strides[out] = t._strides[src]
        out += 1
        src += 1
    return make_view(t, out, sizes, strides, offset)


# =============================================================================================
# Reordering dims
# =============================================================================================

cpdef TensorBase permute(TensorBase t, object dims):
    """The dims of t in the order ``dims`` (a permutation of range(ndim))."""
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("permute", t, dims)
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef bint seen[MAX_DIMS]
    cdef int i
    cdef Py_ssize_t d
    dims = tuple(dims)
    if len(dims) != t._ndim:
        raise ValueError(f"permute: dims {dims} must name each of the {t._ndim} dims of a tensor "
                         f"of shape {t.shape} exactly once")
    for i in range(t._ndim):
        seen[i] = False
    for i in range(t._ndim):
        d = _dim(t, dims[i], "dims")
        if seen[d]:
            raise ValueError(f"permute: dim {d} appears twice in dims {dims}")
        seen[d] = True
        sizes[i] = t._sizes[d]
        strides[i] = t._strides[d]
    return make_view(t, t._ndim, sizes, strides, t._offset)


cpdef TensorBase transpose(TensorBase t, object dim0, object dim1):
    """t with dims dim0 and dim1 swapped."""
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("transpose", t, dim0, dim1)
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef Py_ssize_t a, b
    cdef int i
    if t._ndim == 0:
        _dim(t, dim0, "dim0")
        _dim(t, dim1, "dim1")
        return make_view(t, 0, sizes, strides, t._offset)
    a = _dim(t, dim0, "dim0")
    b = _dim(t, dim1, "dim1")
    for i in range(t._ndim):
        sizes[i] = t._sizes[i]
        strides[i] = t._strides[i]
    sizes[a], sizes[b] = t._sizes[b], t._sizes[a]
    strides[a], strides[b] = t._strides[b], t._strides[a]
    return make_view(t, t._ndim, sizes, strides, t._offset)


cpdef TensorBase reverse_dims(TensorBase t):
    """``t.T`` as NumPy defines it: all dims reversed."""
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("reverse_dims", t)
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int i, n = t._ndim
    for i in range(n):
        sizes[i] = t._sizes[n - 1 - i]
        strides[i] = t._strides[n - 1 - i]
    return make_view(t, n, sizes, strides, t._offset)


def matrix_transpose(TensorBase t):
    """``t.mT``: the last two dims swapped (a stack of transposed matrices)."""
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("matrix_transpose", t)
    if t._ndim < 2:
        raise ValueError(f"matrix_transpose needs at least 2 dims, got shape {t.shape}")
    return transpose(t, -2, -1)


def movedim(TensorBase t, source, destination):
    """Move dims ``source`` to positions ``destination`` (ints or sequences), others keep order."""
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("movedim", t, source, destination)
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise ValueError(f"movedim: source {src} and destination {dst} differ in length")
    src = [_dim(t, s, "source") for s in src]
    dst = [_dim(t, d, "destination") for d in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError(f"movedim: repeated dim in source {src} or destination {dst}")
    if t._ndim == 0:
        return permute(t, ())  # a 0-d tensor has one "dim" 0 that moves onto itself
    order = [None] * t._ndim
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter([d for d in range(t._ndim) if d not in src])
    order = [o if o is not None else next(rest) for o in order]
    return permute(t, order)


# =============================================================================================
# view, reshape and friends. See Note [view versus reshape].
# =============================================================================================

cdef int infer_shape(object shape, Py_ssize_t numel, int* ndim, Py_ssize_t* sizes,
                     str fn) except -1:
    """Fill sizes from ``shape``, replacing one -1 by whatever makes the element count right."""
    cdef int i, infer = -1
    cdef Py_ssize_t known = 1
    shape = tuple(shape)
    if len(shape) > MAX_DIMS:
        raise ValueError(f"{fn}: at most {MAX_DIMS} dims are supported")
    ndim[0] = len(shape)
    for i in range(ndim[0]):
        if isinstance(shape[i], bool) or not hasattr(shape[i], "__index__"):
            raise TypeError(f"{fn}: sizes must be integers, got {shape[i]!r} in {shape}")
        sizes[i] = operator.index(shape[i])
        if sizes[i] == -1:
            if infer >= 0:
                raise ValueError(f"{fn}: only one dim can be -1 (inferred), got shape {shape}")
            infer = i
        elif sizes[i] < 0:
            raise ValueError(f"{fn}: invalid size {sizes[i]} in shape {shape}")
        else:
            known *= sizes[i]
    if infer >= 0:
        if known == 0 or numel % known != 0:
            raise ValueError(f"{fn}: shape {shape} is invalid for a tensor of {numel} elements")
        sizes[infer] = numel // known
    elif known != numel:
        raise ValueError(f"{fn}: shape {shape} is invalid for a tensor of {numel} elements")
    return 0


cdef str compute_view_strides(TensorBase t, int nd, const Py_ssize_t* newshape,
                              Py_ssize_t* newstrides):
    """PyTorch's computeStride. Fills ``newstrides`` and returns None when ``newshape`` can view
    t's memory; else returns why not (see Note [view versus reshape])."""
    cdef int od = t._ndim, tensor_d, view_d = nd - 1, i, chunk_end
    cdef Py_ssize_t chunk_base_stride, tensor_numel = 1, view_numel = 1
    if t._numel == 0 or od == 0:
        # No memory to walk (empty), or one element (0-d): any strides do; use row-major ones.
        chunk_base_stride = 1
        for i in range(nd - 1, -1, -1):
            newstrides[i] = chunk_base_stride
            chunk_base_stride *= newshape[i] if newshape[i] > 0 else 1
        return None
    chunk_base_stride = t._strides[od - 1]
    chunk_end = od - 1
    for tensor_d in range(od - 1, -1, -1):
        tensor_numel *= t._sizes[tensor_d]
        # A chunk ends at dim 0, or where the next-outer dim does not continue this one.
        if tensor_d == 0 or (t._sizes[tensor_d - 1] != 1 and
                             t._strides[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstrides[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return (
                    f"dims {tensor_d}..{chunk_end} of the input (sizes "
                    f"{tuple([t._sizes[i] for i in range(tensor_d, chunk_end + 1)])}, strides "
                    f"{tuple([t._strides[i] for i in range(tensor_d, chunk_end + 1)])}) form one "
                    "contiguous block, and the requested shape splits or merges across its edge"
                )
            if tensor_d > 0:
                chunk_base_stride = t._strides[tensor_d - 1]
                chunk_end = tensor_d - 1
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return "the shapes do not line up"
    return None


cpdef TensorBase view(TensorBase t, object shape):
    """``t.view(shape)``: the same memory seen with another shape. Never copies; raises if the
    strides cannot express it (see Note [view versus reshape])."""
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("view", t, shape)
    cdef int nd = 0
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    infer_shape(shape, t._numel, &nd, sizes, "view")
    reason = compute_view_strides(t, nd, sizes, strides)
    if reason is not None:
        raise RuntimeError(
            f"view: cannot view a tensor of shape {t.shape} and strides {t.stride()} as shape "
            f"{tuple([sizes[i] for i in range(nd)])} without copying: {reason}. Use "
            ".reshape(...), which copies when it must, or .contiguous().view(...)")
    return make_view(t, nd, sizes, strides, t._offset)


cpdef TensorBase try_view(TensorBase t, tuple shape):
    """The view ``reshape(shape)`` would return, or None if reshape has to copy."""
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("try_view", t, shape)
    cdef int nd = 0
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    infer_shape(shape, t._numel, &nd, sizes, "reshape")
    if compute_view_strides(t, nd, sizes, strides) is not None:
        return None
    return make_view(t, nd, sizes, strides, t._offset)


def reshape_view(TensorBase t, shape):
    """(view, None) if ``shape`` can view t's memory, else (None, reason, resolved_shape)."""
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("reshape_view", t, shape)
    cdef int nd = 0, i
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    infer_shape(shape, t._numel, &nd, sizes, "reshape")
    reason = compute_view_strides(t, nd, sizes, strides)
    if reason is None:
        return make_view(t, nd, sizes, strides, t._offset), None, None
    return None, reason, tuple([sizes[i] for i in range(nd)])


def flatten_shape(TensorBase t, start_dim=0, end_dim=-1):
    """The shape ``flatten`` reshapes to: dims start_dim..end_dim merged into one."""
    if t._ndim == 0:
        _dim(t, start_dim, "start_dim")
        _dim(t, end_dim, "end_dim")
        return (1,)
    s = _dim(t, start_dim, "start_dim")
    e = _dim(t, end_dim, "end_dim")
    if s > e:
        raise ValueError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim}")
    shape = t.shape
    n = 1
    for d in range(s, e + 1):
        n *= shape[d]
    return shape[:s] + (n,) + shape[e + 1:]


def unflatten(TensorBase t, dim, sizes):
    """Split dim into ``sizes`` (one may be -1): always a view."""
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("unflatten", t, dim, sizes)
    d = _dim(t, dim)
    sizes = tuple(sizes)
    if not sizes:
        raise ValueError("unflatten: sizes must not be empty")
    cdef int nd = 0
    cdef Py_ssize_t inferred[MAX_DIMS]
    infer_shape(sizes, t._sizes[d], &nd, inferred, "unflatten")
    new = t.shape[:d] + tuple([inferred[i] for i in range(nd)]) + t.shape[d + 1:]
    return view(t, new)


def squeeze(TensorBase t, dim=None):
    """Remove size-1 dims (all of them, or those named by ``dim``, which must have size 1)."""
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("squeeze", t, dim)
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int i, out = 0
    if dim is None:
        drop = {i for i in range(t._ndim) if t._sizes[i] == 1}
    else:
        dims = (dim,) if not isinstance(dim, (tuple, list)) else tuple(dim)
        drop = set()
        for dd in dims:
            d = _dim(t, dd)
            if t._ndim == 0:
                continue
            if t._sizes[d] != 1:
                raise ValueError(
                    f"squeeze: dim {dd} has size {t._sizes[d]}, not 1, in shape {t.shape}; "
                    "only size-1 dims can be squeezed")
            drop.add(d)
    for i in range(t._ndim):
        if i not in drop:
            sizes[out] = t._sizes[i]
            strides[out] = t._strides[i]
            out += 1
    return make_view(t, out, sizes, strides, t._offset)


def unsqueeze(TensorBase t, dim):
    """Insert a size-1 dim at position ``dim`` (in the result's numbering)."""
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("unsqueeze", t, dim)
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int i, out = 0
    if t._ndim + 1 > MAX_DIMS:
        raise ValueError(f"unsqueeze: at most {MAX_DIMS} dims")
    d = normalize_dim(operator.index(dim), t._ndim + 1)
    for i in range(t._ndim + 1):
        if i == d:
            sizes[i] = 1
            # a stride that keeps the result contiguous when t is
            strides[i] = t._strides[i] * t._sizes[i] if i < t._ndim else 1
        else:
            sizes[i] = t._sizes[out]
            strides[i] = t._strides[out]
            out += 1
    return make_view(t, t._ndim + 1, sizes, strides, t._offset)


def expand(TensorBase t, shape):
    """Broadcast t to ``shape`` with stride 0 in the stretched dims (-1 keeps a size)."""
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("expand", t, shape)
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int nd, i, j
    cdef Py_ssize_t want
    shape = tuple(shape)
    nd = len(shape)
    if nd < t._ndim:
        raise ValueError(f"expand: the target shape {shape} has fewer dims than the tensor's "
                         f"shape {t.shape}")
    if nd > MAX_DIMS:
        raise ValueError(f"expand: at most {MAX_DIMS} dims")
    for i in range(nd):
        j = i - (nd - t._ndim)
        if isinstance(shape[i], bool) or not hasattr(shape[i], "__index__"):
            raise TypeError(f"expand: sizes must be integers, got {shape[i]!r}")
        want = operator.index(shape[i])
        if j < 0:
            if want < 0:
                raise ValueError(f"expand: -1 is not allowed for the new leading dim {i} in "
                                 f"{shape}")
            sizes[i] = want
            strides[i] = 0
        elif want == -1 or want == t._sizes[j]:
            sizes[i] = t._sizes[j]
            strides[i] = t._strides[j]
        elif t._sizes[j] == 1 and want >= 0:
            sizes[i] = want
            strides[i] = 0
        else:
            raise ValueError(
                f"expand: cannot expand shape {t.shape} to {shape}: dim {j} has size "
                f"{t._sizes[j]}, which is neither 1 nor {want}")
    return make_view(t, nd, sizes, strides, t._offset)


def broadcast_shapes(*shapes):
    """The shape that all ``shapes`` broadcast to (NumPy's rules), or a ValueError naming the
    first pair of sizes that clash."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        s = tuple(s)
        for i in range(1, len(s) + 1):
            a, b = out[-i], s[-i]
            if a == 1:
                out[-i] = b
            elif b != 1 and a != b:
                raise ValueError(
                    f"shapes {tuple(shapes[0])} and {s} cannot be broadcast together: at dim "
                    f"{ndim - i} (counting in the broadcast shape) sizes {a} and {b} differ and "
                    "neither is 1")
    return tuple(out)


def broadcast_to(TensorBase t, shape):
    """NumPy's broadcast_to: ``expand`` that only stretches size-1 or missing dims."""
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("broadcast_to", t, shape)
    shape = tuple(shape)
    for s in shape:
        if operator.index(s) < 0:
            raise ValueError(f"broadcast_to: sizes must be >= 0, got {shape}")
    return expand(t, shape)


# =============================================================================================
# Slicing pieces: narrow, select, split, chunk, unbind, unfold, diagonal, flip
# =============================================================================================

cdef TensorBase _with_dim(TensorBase t, int d, Py_ssize_t size, Py_ssize_t stride,
                          Py_ssize_t offset):
    """t with dim d replaced by (size, stride) and a new offset."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int i
    for i in range(t._ndim):
        sizes[i] = t._sizes[i]
        strides[i] = t._strides[i]
    sizes[d] = size
    strides[d] = stride
    return make_view(t, t._ndim, sizes, strides, offset)


def narrow(TensorBase t, dim, start, length):
    """Elements start..start+length-1 along ``dim`` (start may be negative)."""
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("narrow", t, dim, start, length)
    if t._ndim == 0:
        raise IndexError("narrow: a 0-d tensor has no dims to narrow")
    d = _dim(t, dim)
    n = t._sizes[d]
    start = operator.index(start)
    length = operator.index(length)
    if start < -n or start > n:
        raise IndexError(f"narrow: start {start} is out of range for dim {d} of size {n}")
    if start < 0:
        start += n
    if length < 0 or start + length > n:
        raise IndexError(f"narrow: start {start} + length {length} exceeds dim {d} of size {n}")
    return _with_dim(t, d, length, t._strides[d], t._offset + start * t._strides[d])


def select(TensorBase t, dim, index):
    """The slice at ``index`` along ``dim``, with that dim removed (``t[..., index, ...]``)."""
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("select", t, dim, index)
    if t._ndim == 0:
        raise IndexError("select: a 0-d tensor has no dims to select from")
    d = _dim(t, dim)
    return getitem(t, (slice(None),) * d + (index,))


def split(TensorBase t, split_size_or_sections, dim=0):
    """PyTorch's split: pieces of size ``split_size`` (the last may be smaller), or of the
    sizes in a list, which must add up to the dim's size."""
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("split", t, split_size_or_sections, dim)
    d = _dim(t, dim)
    n = t._sizes[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step <= 0:
            if n == 0 and step == 0:
                return (narrow(t, d, 0, 0),)
            raise ValueError(f"split: split_size must be positive, got {step}")
        sizes = [min(step, n - s) for s in range(0, n, step)] or [0]
    else:
        sizes = [operator.index(s) for s in split_size_or_sections]
        if sum(sizes) != n or any(s < 0 for s in sizes):
            raise ValueError(f"split: sections {sizes} must be >= 0 and add up to the size of "
                             f"dim {d}, which is {n}")
    out = []
    start = 0
    for s in sizes:
        out.append(narrow(t, d, start, s))
        start += s
    return tuple(out)


def chunk(TensorBase t, chunks, dim=0):
    """Split into ``chunks`` pieces of ceil(n / chunks) (fewer if the dim is short)."""
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("chunk", t, chunks, dim)
    chunks = operator.index(chunks)
    if chunks <= 0:
        raise ValueError(f"chunk: chunks must be positive, got {chunks}")
    d = _dim(t, dim)
    n = t._sizes[d]
    if n == 0:
        return split(t, [0] * chunks, d)  # PyTorch gives ``chunks`` empty pieces
    return split(t, -(-n // chunks), d)


def unbind(TensorBase t, dim=0):
    """All slices along ``dim``, that dim removed: ``tuple(t[i] for i in range(n))``."""
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("unbind", t, dim)
    d = _dim(t, dim)
    return tuple([select(t, d, i) for i in range(t._sizes[d])])


def unfold(TensorBase t, dimension, size, step):
    """All windows of ``size`` along ``dimension``, ``step`` apart, as a new last dim.

    The window dim gets the old stride and the old dim's stride is multiplied by ``step``:
    im2col for free (the classic lesson on strides).
    """
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("unfold", t, dimension, size, step)
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int i
    size = operator.index(size)
    step = operator.index(step)
    if t._ndim == 0:
        d = 0
        n = 1
        st = 1
    else:
        d = _dim(t, dimension, "dimension")
        n = t._sizes[d]
        st = t._strides[d]
    if size < 0 or size > n:
        raise ValueError(f"unfold: size {size} must be between 0 and the dim's size {n}")
    if step <= 0:
        raise ValueError(f"unfold: step must be positive, got {step}")
    if t._ndim + 1 > MAX_DIMS:
        raise ValueError(f"unfold: at most {MAX_DIMS} dims")
    for i in range(t._ndim):
        sizes[i] = t._sizes[i]
        strides[i] = t._strides[i]
    if t._ndim == 0:
        sizes[0] = size
        strides[0] = 1
        return make_view(t, 1, sizes, strides, t._offset)
    sizes[d] = (n - size) // step + 1
    strides[d] = st * step
    sizes[t._ndim] = size
    strides[t._ndim] = st
    return make_view(t, t._ndim + 1, sizes, strides, t._offset)


def diagonal(TensorBase t, offset=0, dim1=0, dim2=1):
    """The diagonal of the (dim1, dim2) planes as a new last dim, with stride s1 + s2."""
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("diagonal", t, offset, dim1, dim2)
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int i, out = 0
    if t._ndim < 2:
        raise ValueError(f"diagonal needs at least 2 dims, got shape {t.shape}")
    a = _dim(t, dim1, "dim1")
    b = _dim(t, dim2, "dim2")
    if a == b:
        raise ValueError(f"diagonal: dim1 and dim2 must differ, both are {a}")
    offset = operator.index(offset)
    start = t._offset
    if offset >= 0:
        length = max(0, min(t._sizes[a], t._sizes[b] - offset))
        if length > 0:
            start += offset * t._strides[b]
    else:
        length = max(0, min(t._sizes[a] + offset, t._sizes[b]))
        if length > 0:
            start -= offset * t._strides[a]
    for i in range(t._ndim):
        if i != a and i != b:
            sizes[out] = t._sizes[i]
            strides[out] = t._strides[i]
            out += 1
    sizes[out] = length
    strides[out] = t._strides[a] + t._strides[b]
    return make_view(t, out + 1, sizes, strides, start)


def flip(TensorBase t, dims=None):
    """Reverse the order along ``dims`` (all dims if None) as a view with negative strides.

    PyTorch copies here; strided can view, because its strides may be negative (DESIGN.md).
    """
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("flip", t, dims)
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef Py_ssize_t offset = t._offset
    cdef int i
    if dims is None:
        dims = range(t._ndim)
    elif isinstance(dims, int):
        dims = (dims,)
    todo = set()
    for dd in dims:
        d = _dim(t, dd, "dims")
        if d in todo:
            raise ValueError(f"flip: dim {d} appears twice in dims {tuple(dims)}")
        todo.add(d)
    for i in range(t._ndim):
        sizes[i] = t._sizes[i]
        strides[i] = t._strides[i]
        if i in todo and t._sizes[i] > 0:
            offset += (t._sizes[i] - 1) * t._strides[i]
            strides[i] = -t._strides[i]
    return make_view(t, t._ndim, sizes, strides, offset)


# =============================================================================================
# as_strided and the complex parts
# =============================================================================================

def as_strided(TensorBase t, size, stride, storage_offset=None):
    """A view with any sizes, strides and offset over t's storage, checked to stay inside it.

    The most general view, and the most dangerous: the check here is what keeps every other
    kernel from reading or writing outside the storage.
    """
    if _to_autograd(t):  # Note [Views through the Autograd key]
        return _dispatch.call("as_strided", t, size, stride, storage_offset)
    cdef int nd = 0, i
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef Py_ssize_t offset, lo, hi, cap
    cdef Py_ssize_t numel = check_shape(size, &nd, sizes, "as_strided")
    stride = tuple(stride)
    if len(stride) != nd:
        raise ValueError(f"as_strided: size {tuple(size)} and stride {stride} differ in length")
    for i in range(nd):
        strides[i] = operator.index(stride[i])
    offset = t._offset if storage_offset is None else operator.index(storage_offset)
    if offset < 0:
        raise ValueError(f"as_strided: storage_offset must be >= 0, got {offset}")
    cap = t._storage.nbytes // t.dtype.itemsize
    lo = hi = offset
    if numel > 0:
        # Each dim's reach is checked before it is added, so that no sum can overflow: a reach
        # past 2**63 elements would wrap around to a small number and pass. lo stays >= 0 and
        # hi < cap at every step, which bounds (sizes[i] - 1) * |strides[i]| by what is left.
        outside = offset >= cap
        for i in range(nd):
            if outside or sizes[i] == 1:
                continue
            if strides[i] < 0:
                outside = strides[i] < -lo or sizes[i] - 1 > lo // -strides[i]
                if not outside:
                    lo += (sizes[i] - 1) * strides[i]
            else:
                outside = strides[i] > 0 and sizes[i] - 1 > (cap - 1 - hi) // strides[i]
                if not outside:
                    hi += (sizes[i] - 1) * strides[i]
        if outside:  # the reach in Python's integers, which do not overflow
            reach = [(sizes[i] - 1) * <object>strides[i] for i in range(nd)]
            raise ValueError(
                f"as_strided: size {tuple(size)}, stride {stride} and offset {offset} reach "
                f"storage elements {offset + sum([r for r in reach if r < 0])}.."
                f"{offset + sum([r for r in reach if r > 0])}, outside the storage's "
                f"0..{cap - 1} ({t._storage.nbytes} bytes of {t.dtype.name})")
    elif offset > cap:
        raise ValueError(f"as_strided: offset {offset} is past the storage's end ({cap})")
    return make_view(t, nd, sizes, strides, offset)


cdef TensorBase _complex_part(TensorBase t, int which):
    """The real (0) or imaginary (1) parts of a complex tensor as a real view.

    A complex number is two reals side by side, so in units of the real dtype every stride
    doubles, and the imaginary part starts one element later.
    """
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int i
    cdef DType part
    if t.dtype.num == kComplex64:
        part = dtype_from_num(kFloat32)
    elif t.dtype.num == kComplex128:
        part = dtype_from_num(kFloat64)
    else:
        raise TypeError(f"{'real' if which == 0 else 'imag'} view: needs a complex tensor, got "
                        f"{t.dtype.name}")
    for i in range(t._ndim):
        sizes[i] = t._sizes[i]
        strides[i] = 2 * t._strides[i]
    return make_view_dtype(t, t._ndim, sizes, strides, 2 * t._offset + which, part)


def bits_view(TensorBase t):
    """A float16 or bfloat16 tensor's bits, as a uint16 view of the same memory.

    The way a bfloat16 tensor reaches NumPy: the buffer protocol has no format letter for
    bfloat16, so ``__array__`` takes this view's buffer and reinterprets it as ml_dtypes'
    bfloat16 (Note [Half precision rows] in strided/_dtype_table.py). Tests read the exact bits
    through it too.
    """
    if t.dtype.itemsize != 2 or t.dtype.kind != "f":
        raise TypeError(f"bits_view: needs a float16 or bfloat16 tensor, got {t.dtype.name}")
    return make_view_dtype(t, t._ndim, t._sizes, t._strides, t._offset, dtype_from_num(kUInt16))


# Note [A view as another dtype]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# NumPy's ``a.view(dtype)`` (and PyTorch's ``x.view(torch.int64)``) reads the same bytes as
# another dtype. With equal itemsizes only the dtype changes. Otherwise NumPy's rules: not on a
# 0-d tensor; the last axis must be contiguous (stride one element, or length 1), and its bytes
# are cut into the new itemsize, so its length scales by old/new and must come out whole; the
# other axes keep their strides in bytes. strided keeps strides and the offset in elements of
# the dtype, so a byte stride or offset that the new itemsize does not divide (NumPy's unaligned
# views, e.g. float64 from the second byte) cannot be written and is refused, naming it.
def dtype_view(TensorBase t, DType dtype):
    """The same bytes read as ``dtype`` (see Note [A view as another dtype])."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef Py_ssize_t old = t.dtype.itemsize, new = dtype.itemsize, nbytes
    cdef int i, last = t._ndim - 1
    if old == new:
        return make_view_dtype(t, t._ndim, t._sizes, t._strides, t._offset, dtype)
    if t._ndim == 0:
        raise ValueError(
            f"view: changing the dtype of a 0-d tensor is only supported if the itemsize is "
            f"unchanged ({t.dtype.name} has {old} bytes, {dtype.name} {new})")
    if t._sizes[last] != 1 and t._strides[last] != 1:
        raise ValueError(
            f"view: to change to a dtype of a different size ({t.dtype.name} -> {dtype.name}), "
            f"the last axis must be contiguous; its stride is {t._strides[last]} elements")
    nbytes = t._sizes[last] * old
    if nbytes % new:
        raise ValueError(
            f"view: the last axis holds {nbytes} bytes ({t._sizes[last]} x {t.dtype.name}), not "
            f"a whole number of {dtype.name} ({new} bytes)")
    for i in range(last):
        sizes[i] = t._sizes[i]
        if (t._strides[i] * old) % new:
            raise ValueError(
                f"view: axis {i}'s stride of {t._strides[i] * old} bytes is not a whole number of "
                f"{dtype.name} elements ({new} bytes)")
        strides[i] = t._strides[i] * old // new
    if (t._offset * old) % new:
        raise ValueError(
            f"view: the tensor starts {t._offset * old} bytes into its storage, not a whole "
            f"number of {dtype.name} elements ({new} bytes)")
    sizes[last] = nbytes // new
    strides[last] = 1
    return make_view_dtype(t, t._ndim, sizes, strides, t._offset * old // new, dtype)


def real_view(TensorBase t):
    return _complex_part(t, 0)


def imag_view(TensorBase t):
    return _complex_part(t, 1)


def is_contiguous(TensorBase t):
    return is_contiguous_c(t._ndim, t._sizes, t._strides)


# The view ops as dispatcher ops (Note [Views through the Autograd key]): one kernel for the
# CPU and CUDA keys, the function itself; strided.autograd adds the Autograd key's.
VIEW_OPS = (
    "getitem",
    "permute",
    "transpose",
    "reverse_dims",
    "matrix_transpose",
    "movedim",
    "view",
    "try_view",
    "reshape_view",
    "unflatten",
    "squeeze",
    "unsqueeze",
    "expand",
    "broadcast_to",
    "narrow",
    "select",
    "split",
    "chunk",
    "unbind",
    "unfold",
    "diagonal",
    "flip",
    "as_strided",
)
for _name in VIEW_OPS:
    _dispatch.register(_name, "CPU", globals()[_name])
    _dispatch.register(_name, "CUDA", globals()[_name])
