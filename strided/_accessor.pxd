# TensorAccessor: how a kernel indexes a tensor of known rank without any per-element checks.
#
# Note [TensorAccessor]
# ~~~~~~~~~~~~~~~~~~~~~
# PyTorch's kernels write ``auto a = t.accessor<float, 2>(); a[i][j] = ...``: the rank and the
# element type are fixed when the accessor is made, checked once there (right rank? right dtype?
# CPU memory?), and never again, so indexing costs two multiplies and an add. ``Accessor2`` is the
# same idea in Cython: ``accessor2(t)`` checks and captures (data, sizes, strides in elements);
# ``at2(&acc, i, j, <float*>NULL)`` returns a typed pointer to element [i, j] (the NULL argument
# only names the element type: Cython picks the specialisation from it). Kernels call at2 in their
# inner loops; indices are trusted, so the caller's loop bounds must come from ``acc.sizes``.
#
# Used by the blocked transpose copy (_cpu/copy.pyx.tp) and by eye() (_cpu/copy.pyx.tp).

from strided._core cimport TensorBase
# the element types at2 may read as: the unsigned integer of each width, the real floats and the
# complex types, made from the dtype table
from strided._fused cimport element_t


ctypedef struct Accessor2:
    char* data               # element [0, 0]
    Py_ssize_t sizes[2]
    Py_ssize_t strides[2]    # in elements, may be negative or 0
    Py_ssize_t itemsize


cdef inline int accessor2(TensorBase t, Accessor2* acc) except -1:
    """Capture a 2-D CPU tensor for a kernel, checking everything the kernel will then trust."""
    if t._ndim != 2:
        raise ValueError(f"a 2-D accessor needs a 2-D tensor, got shape {t.shape}")
    if not t._storage.device.is_cpu:
        raise ValueError(f"a CPU accessor needs a CPU tensor, got one on {t.device}")
    acc.data = t._data()
    acc.sizes[0] = t._sizes[0]
    acc.sizes[1] = t._sizes[1]
    acc.strides[0] = t._strides[0]
    acc.strides[1] = t._strides[1]
    acc.itemsize = t.dtype.itemsize
    return 0


cdef inline Accessor2 accessor2_raw(char* data, Py_ssize_t size0, Py_ssize_t size1,
                                    Py_ssize_t stride0, Py_ssize_t stride1,
                                    Py_ssize_t itemsize) noexcept nogil:
    """An accessor over a 2-D block a kernel already owns (strides in elements)."""
    cdef Accessor2 acc
    acc.data = data
    acc.sizes[0] = size0
    acc.sizes[1] = size1
    acc.strides[0] = stride0
    acc.strides[1] = stride1
    acc.itemsize = itemsize
    return acc


cdef inline element_t* at2(const Accessor2* acc, Py_ssize_t i, Py_ssize_t j,
                           element_t* kind) noexcept nogil:
    """A pointer to element [i, j], typed as ``kind`` says (unchecked, see Note
    [TensorAccessor])."""
    return (<element_t*>acc.data) + i * acc.strides[0] + j * acc.strides[1]
