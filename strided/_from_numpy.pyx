"""from_numpy: a tensor over a NumPy array's memory, sharing it without a copy (PyTorch's
``torch/csrc/utils/tensor_numpy.cpp``).

The other direction, a NumPy array over a tensor's memory, is the buffer protocol of TensorBase
(``_core.pyx``); the other libraries' memory comes through DLPack (``_dlpack.pyx``) and the CUDA
array interface (``_ops/creation.py``).
"""

import numpy as np

from libc.stdint cimport uintptr_t

cimport numpy as cnp

from strided._core cimport MAX_DIMS, Storage, make_tensor
from strided._dtype cimport DType
from strided._overlap cimport memory_range

from strided._dtype import all_dtypes

cnp.import_array()

cdef dict _BY_NPY_NUM = {}   # NumPy type number -> DType (int64 has two: 'l' and 'q')


def _fill_npy_table():
    for d in all_dtypes():
        for code in np.typecodes["All"]:
            try:
                npd = np.dtype(code)
            except TypeError:
                continue
            if npd == (<DType>d).numpy:
                _BY_NPY_NUM[npd.num] = d
        if (<DType>d).numpy is not None:  # bfloat16: ml_dtypes' type number, if installed
            _BY_NPY_NUM[(<DType>d).numpy.num] = d


_fill_npy_table()


def from_numpy_array(cnp.ndarray array):
    """A tensor over ``array``'s memory (see strided.from_numpy for the public face).

    The Storage borrows the array's bytes and keeps the array alive; it starts at the lowest
    address the array touches (negative strides reach below the array's data pointer), so the
    tensor's offset is where element [0, ..., 0] sits above that.
    """
    cdef int ndim = cnp.PyArray_NDIM(array), i
    cdef cnp.npy_intp* dims = cnp.PyArray_DIMS(array)
    cdef cnp.npy_intp* bstrides = cnp.PyArray_STRIDES(array)
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef Py_ssize_t lo = 0, hi = 0, numel = 1, item
    cdef char* data = <char*>cnp.PyArray_DATA(array)
    cdef DType d = _BY_NPY_NUM.get(cnp.PyArray_TYPE(array))
    if d is None:
        raise TypeError(
            f"from_numpy: NumPy dtype {array.dtype} is not supported; strided supports bool, "
            "int8..int64, uint8..uint64, float16, float32, float64, complex64, complex128 (and "
            "ml_dtypes' bfloat16)")
    if cnp.PyArray_ISBYTESWAPPED(array):
        raise TypeError(
            f"from_numpy: the array is in non-native byte order ({array.dtype.str}); convert it "
            "with array.astype(array.dtype.newbyteorder('='))")
    item = d.itemsize
    # A complex number needs only the alignment of its real part (complex128: 8 bytes).
    if (<uintptr_t>data) % (item // 2 if d.kind == "c" else item):
        raise ValueError(f"from_numpy: the array's address is not aligned for {d.name}; use "
                         "numpy.ascontiguousarray(array) first")
    for i in range(ndim):
        if bstrides[i] % item:
            raise ValueError(
                f"from_numpy: the array's byte strides {(<object>array).strides} are not "
                f"multiples of its itemsize {item}, which strided's element strides need; use "
                "numpy.ascontiguousarray(array) first")
        sizes[i] = dims[i]
        strides[i] = bstrides[i] // item
        numel *= dims[i]
    memory_range(ndim, sizes, strides, 0, numel, &lo, &hi)
    cdef Storage storage = Storage.__new__(Storage)
    storage.data = data + lo * item
    storage.nbytes = (hi - lo) * item
    storage.owner = array
    storage.writable = cnp.PyArray_ISWRITEABLE(array)
    return make_tensor(storage, -lo, ndim, sizes, strides, d)
