"""unique: the distinct values of a sorted sequence, with their first positions, counts and
inverse indices, in one pass (behind ``unique_values``, ``unique_counts``, ``unique_inverse`` and
``unique_all`` in ``_ops/sorting.py``, after the stable sort of ``sort.pyx``).

Note [Unique from a sort]
~~~~~~~~~~~~~~~~~~~~~~~~~
After a stable sort of the flattened input, equal values sit next to each other, and within each
group in their original order. One pass then finds everything ``unique_all`` returns: a new group
starts wherever ``s[k] != s[k - 1]``; its value is ``s[start]``, its first position in the input is
``perm[start]`` (the first of the group, by stability), its count is ``k - start``, and every member
``perm[t]`` of the group gets the group's number as its inverse index. As ``!=`` is true between a
NaN and anything, every NaN is its own group, which is what NumPy 2's ``unique_*`` functions do
(``equal_nan=False``). A first pass counts the groups so the outputs are allocated at their size.
"""

from libc.stdint cimport (
    int8_t,
    int16_t,
    int32_t,
    int64_t,
    uint8_t,
    uint16_t,
    uint32_t,
    uint64_t,
)

from strided._core cimport TensorBase, empty_tensor
from strided._dtype cimport (
    DType,
    dtype_from_num,
    kBool,
    kComplex64,
    kFloat32,
    kFloat64,
    kInt8,
    kInt16,
    kInt32,
    kInt64,
    kUInt8,
    kUInt16,
    kUInt32,
    kUInt64,
)

from strided._cpu.sort cimport cdouble_t, cfloat_t, key_t


# =============================================================================================
# unique: one pass over a sorted sequence. See Note [Unique from a sort].
# =============================================================================================

cdef Py_ssize_t _unique_typed(const key_t* s, const int64_t* perm, Py_ssize_t n, key_t* values,
                              int64_t* first, int64_t* counts, int64_t* inverse) noexcept nogil:
    """Group the sorted s[0:n] into runs of equal values. With values NULL only count the runs;
    else write each run's value and count and, when the input positions ``perm`` are given,
    each run's first position and each element's run number at its input position. Returns
    the number of runs."""
    cdef Py_ssize_t k, t, g = 0, start = 0
    if n == 0:
        return 0
    for k in range(1, n + 1):
        if k == n or s[k] != s[k - 1]:
            if values != NULL:
                values[g] = s[start]
                counts[g] = k - start
                if perm != NULL:
                    first[g] = perm[start]
                    for t in range(start, k):
                        inverse[perm[t]] = g
            g += 1
            start = k
    return g


cdef Py_ssize_t _unique_dispatch(int num, const char* s, const int64_t* perm, Py_ssize_t n,
                                 char* values, int64_t* first, int64_t* counts,
                                 int64_t* inverse) noexcept nogil:
    if num == kBool or num == kUInt8:
        return _unique_typed(<uint8_t*>s, perm, n, <uint8_t*>values, first, counts, inverse)
    elif num == kInt8:
        return _unique_typed(<int8_t*>s, perm, n, <int8_t*>values, first, counts, inverse)
    elif num == kInt16:
        return _unique_typed(<int16_t*>s, perm, n, <int16_t*>values, first, counts, inverse)
    elif num == kInt32:
        return _unique_typed(<int32_t*>s, perm, n, <int32_t*>values, first, counts, inverse)
    elif num == kInt64:
        return _unique_typed(<int64_t*>s, perm, n, <int64_t*>values, first, counts, inverse)
    elif num == kUInt16:
        return _unique_typed(<uint16_t*>s, perm, n, <uint16_t*>values, first, counts, inverse)
    elif num == kUInt32:
        return _unique_typed(<uint32_t*>s, perm, n, <uint32_t*>values, first, counts, inverse)
    elif num == kUInt64:
        return _unique_typed(<uint64_t*>s, perm, n, <uint64_t*>values, first, counts, inverse)
    elif num == kFloat32:
        return _unique_typed(<float*>s, perm, n, <float*>values, first, counts, inverse)
    elif num == kFloat64:
        return _unique_typed(<double*>s, perm, n, <double*>values, first, counts, inverse)
    elif num == kComplex64:
        return _unique_typed(<cfloat_t*>s, perm, n, <cfloat_t*>values, first, counts, inverse)
    else:
        return _unique_typed(<cdouble_t*>s, perm, n, <cdouble_t*>values, first, counts,
                             inverse)


def unique_from_sorted(TensorBase sorted_values, TensorBase perm=None):
    """``(values, indices, counts, inverse)`` of a stably sorted 1-D contiguous tensor and the
    int64 input positions of its elements (``sort_axis`` of the flattened input). Every NaN is
    its own value. Without ``perm``, indices and inverse are None. See Note [Unique from a
    sort].

    Examples
    --------
    >>> import strided
    >>> from strided._cpu.sort import sort_axis
    >>> from strided._cpu.unique import unique_from_sorted
    >>> s, p = sort_axis(strided.asarray([2, 1, 2, 5]), 0, False, True, True)
    >>> unique_from_sorted(s, p)
    (tensor([1, 2, 5]), tensor([1, 0, 3]), tensor([1, 2, 1]), tensor([1, 0, 1, 2]))
    """
    cdef Py_ssize_t n = sorted_values._numel, g
    cdef int num = sorted_values.dtype.num
    cdef DType i64 = dtype_from_num(kInt64)
    cdef TensorBase values, counts, first = None, inverse = None
    cdef Py_ssize_t size
    cdef int64_t* p = NULL
    if sorted_values._ndim != 1 or not sorted_values.is_contiguous() or (
            perm is not None and (perm._ndim != 1 or perm._numel != n or perm.dtype is not i64
                                  or not perm.is_contiguous())):
        raise ValueError("unique_from_sorted: expects a contiguous 1-D tensor and its int64 "
                         "positions, as sort_axis returns them")
    if not sorted_values._storage.device.is_cpu:
        raise NotImplementedError(f"unique: the tensor is on {sorted_values.device}; only the "
                                  "CPU kernel exists yet")
    if perm is not None:
        p = <int64_t*>perm._data()
    g = _unique_dispatch(num, sorted_values._data(), p, n, NULL, NULL, NULL, NULL)
    size = g
    values = empty_tensor(1, &size, sorted_values.dtype, sorted_values._storage.device)
    counts = empty_tensor(1, &size, i64, sorted_values._storage.device)
    if perm is not None:
        first = empty_tensor(1, &size, i64, sorted_values._storage.device)
        inverse = empty_tensor(1, &n, i64, sorted_values._storage.device)
    if n:
        _unique_dispatch(num, sorted_values._data(), p, n, values._data(),
                         NULL if first is None else <int64_t*>first._data(),
                         <int64_t*>counts._data(),
                         NULL if inverse is None else <int64_t*>inverse._data())
    return values, first, counts, inverse
