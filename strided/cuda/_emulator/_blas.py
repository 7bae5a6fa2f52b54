"""The emulator's cuBLAS: ``gemmStridedBatched`` as a reference written with NumPy.

On a GPU strided multiplies floating-point matrices with cuBLAS (Note [CUDA matmul] in
strided/cuda/_linalg.py). What can go wrong there is strided's side of the call: which operand
goes first, which one is transposed, the leading dimensions and the batch strides (Note [cuBLAS
on strided views]). This module does what cuBLAS documents for those arguments, on emulated
device memory, so the tests on ``cuda-emulated`` run the very calls a GPU gets:

- matrices are column-major: element (i, j) of a stored matrix is at ``i + j * ld`` elements;
- ``op`` is ``"N"`` (use the stored matrix) or ``"T"`` (its transpose); ``A`` is stored m x k
  for ``"N"`` and k x m for ``"T"``, ``B`` k x n or n x k, ``C`` always m x n;
- ``C = op(A) @ op(B)`` (alpha 1, beta 0: C is written, never read), for each of ``count``
  matrices, the i-th at ``A + i * strideA`` and so on;
- float16 and bfloat16 (``cublasGemmStridedBatchedEx`` with CUBLAS_COMPUTE_32F, Note [cuBLAS
  for half matrices] in strided/cuda/_backend.py): the elements are widened exactly to
  float32, multiplied and summed in float32, and each element of C rounded once to the half
  type, to nearest even (the CPU's rule, so the emulator gives the CPU's bits);
- cuBLAS's checks: a leading dimension below the stored matrix's row count, or a negative size,
  is CUBLAS_STATUS_INVALID_VALUE; and every byte read or written must lie inside one live
  allocation (``device_bytes``), which a real GPU only reports under compute-sanitizer.
"""

from __future__ import annotations

import numpy as np

from ._memory import device_bytes

__all__ = ["gemm_strided_batched"]

# a half type's elements are read as their 16 bits (NumPy has no bfloat16)
_HALVES = ("float16", "bfloat16")


def _widen(bits, name):
    """The uint16 ``bits`` of half type ``name`` as float32 values (exact)."""
    if name == "float16":
        return bits.view(np.float16).astype(np.float32)
    return (bits.astype(np.uint32) << 16).view(np.float32)  # bfloat16: a float32's top half


def _round(x, name):
    """float32 ``x`` rounded once to half type ``name``, as uint16 bits: nearest, ties to even
    (scalar_math.h's strided_f32_to_f16 / strided_f32_to_bf16)."""
    x = np.ascontiguousarray(x, np.float32)
    if name == "float16":
        return x.astype(np.float16).view(np.uint16)
    u = x.view(np.uint32)
    rounded = ((u + np.uint32(0x7FFF) + ((u >> 16) & np.uint32(1))) >> 16).astype(np.uint16)
    quiet = ((u >> 16) & np.uint32(0x8000)).astype(np.uint16) | np.uint16(0x7FC0)
    return np.where(np.isnan(x), quiet, rounded)


def _stored(ptr, rows, cols, ld, dtype):
    """The column-major ``rows x cols`` matrix at ``ptr`` (leading dimension ``ld``)."""
    item = dtype.itemsize
    if rows == 0 or cols == 0:
        return np.zeros((rows, cols), dtype)
    nbytes = ((cols - 1) * ld + rows) * item
    flat = device_bytes(ptr, nbytes).view(dtype)
    return np.lib.stride_tricks.as_strided(flat, (rows, cols), (item, ld * item))


def gemm_strided_batched(dtype, transa, transb, m, n, k, a, lda, sa, b, ldb, sb, c, ldc, sc,
                         count):  # fmt: skip
    """``C_i = op(A_i) @ op(B_i)`` for i < count, as ``cublas<t>gemmStridedBatched`` does with
    alpha 1 and beta 0 (addresses in bytes, strides and leading dimensions in elements)."""
    half = dtype if dtype in _HALVES else None
    dtype = np.dtype(np.uint16 if half else dtype)
    rows_a = m if transa == "N" else k
    rows_b = k if transb == "N" else n
    for name, value, least in (("lda", lda, rows_a), ("ldb", ldb, rows_b), ("ldc", ldc, m)):
        if value < max(1, least):
            raise ValueError(
                f"CUBLAS_STATUS_INVALID_VALUE: {name}={value} is below the stored matrix's "
                f"{max(1, least)} rows"
            )
    if min(m, n, k, count) < 0 or transa not in "NT" or transb not in "NT":
        raise ValueError("CUBLAS_STATUS_INVALID_VALUE: a negative size or an unknown op")
    item = dtype.itemsize
    for i in range(count):
        sa_ = _stored(a + i * sa * item, rows_a, k if transa == "N" else m, lda, dtype)
        sb_ = _stored(b + i * sb * item, rows_b, n if transb == "N" else k, ldb, dtype)
        op_a = sa_ if transa == "N" else sa_.T
        op_b = sb_ if transb == "N" else sb_.T
        if half:  # float32 products and sums, one rounding
            product = _round(np.matmul(_widen(op_a, half), _widen(op_b, half)), half)
        else:
            product = np.matmul(op_a, op_b)  # computed before C is written: C may alias nothing
        _stored(c + i * sc * item, m, n, ldc, dtype)[...] = product
