# The sort order, shared by the sorting kernels (sort.pyx) and unique (unique.pyx): which dtypes
# sort (key_t), the compile-time tags that pick a specialisation (order_t, index_t), and the
# comparisons. See Note [Where NaN goes] and Note [Complex order] in sort.pyx.

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

ctypedef float complex cfloat_t
ctypedef double complex cdouble_t

# Every sortable dtype. bool is read as uint8_t (it holds only 0 and 1; see _cpu/copy.pyx.tp).
ctypedef fused key_t:
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    uint16_t
    uint32_t
    uint64_t
    float
    double
    cfloat_t
    cdouble_t


# Tags: empty types that exist only to pick a specialisation at compile time (a NULL pointer to
# one is passed, and ``if order_t is Ascending`` is decided by Cython, not at run time).
cdef struct Ascending:
    char unused

cdef struct Descending:
    char unused

cdef struct NoIndex:    # "do not carry positions": see Note [Why merge sort]
    char unused

ctypedef fused order_t:
    Ascending
    Descending

ctypedef fused index_t:
    NoIndex
    int64_t


# =============================================================================================
# Comparisons. See Note [Where NaN goes] and Note [Complex order].
# =============================================================================================

cdef inline bint _complex_less(double ar, double ai, double br, double bi) noexcept nogil:
    """a < b in NumPy's complex order (its CFLOAT_LT): NaNs after everything else."""
    if ar < br:
        return ai == ai or bi != bi
    elif ar > br:
        return bi != bi and ai == ai
    elif ar == br or (ar != ar and br != br):
        return ai < bi or (bi != bi and ai == ai)
    else:
        return br != br


cdef inline bint _less(key_t a, key_t b) noexcept nogil:
    """a < b in sort order (real floats never meet a NaN here: the gather set them aside)."""
    if key_t is cfloat_t or key_t is cdouble_t:
        return _complex_less(a.real, a.imag, b.real, b.imag)
    else:
        return a < b


cdef inline bint _before(key_t a, key_t b, order_t* order) noexcept nogil:
    """Whether a belongs strictly before b; a stable sort moves b ahead of a only then."""
    if order_t is Ascending:
        return _less(a, b)
    else:
        return _less(b, a)


cdef inline index_t* _at(index_t* p, Py_ssize_t k) noexcept nogil:
    """p + k for a position array; the NoIndex "array" is NULL and stays NULL."""
    if index_t is int64_t:
        return p + k
    else:
        return p


cdef inline int64_t _pick(int64_t x, int64_t y, bint take_y) noexcept nogil:
    """``y if take_y else x`` as bit arithmetic, which the compiler cannot turn back into an
    unpredictable branch (it did for the positions, making argsort twice as slow)."""
    return x ^ ((x ^ y) & -<int64_t>take_y)
