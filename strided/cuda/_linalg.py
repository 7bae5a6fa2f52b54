"""matmul on CUDA devices (addmm is composed of it in strided/_ops/linalg.py).

Note [CUDA matmul]
~~~~~~~~~~~~~~~~~~
Floating-point products (float16/bfloat16/float32/float64/complex64/complex128) go to cuBLAS,
the library PyTorch and CuPy call, so benchmarks/bench_cuda.py measures strided's overhead and
not a different GEMM. strided calls ``cublas<t>gemmStridedBatched`` itself (through CuPy's thin
binding of the C function; ``cublasGemmStridedBatchedEx`` for the halves, Note [cuBLAS for half
matrices] in _backend.py), with the arguments planned in ``gemm_calls`` below (Note [cuBLAS on
strided views]):
``cupy.matmul`` would do the same work after tens of microseconds of checks and views, which
for the small matrices of a training step cost more than the multiplication. Integers and
bool, which cuBLAS does not multiply, run strided's own tiled kernel (kernels/matmul.cu), a
lesson in shared memory and barriers, and the reason the emulator must model __syncthreads.

On the emulator the "cuBLAS" is a reference GEMM written with NumPy over the raw memory
(``EmulatorBackend.gemm``), column-major and with cuBLAS's argument checks, so that every test
on ``cuda-emulated`` runs the same plan the GPU runs.

The shape rules (NumPy's 1-D promotion, broadcast batch dims) are the CPU kernel's, and the
error messages the same: the CPU's checks run first on the shapes alone.

Note [cuBLAS on strided views]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
cuBLAS, like Fortran BLAS, stores matrices column-major: element (i, j) of a matrix with leading
dimension ``ld`` is at ``i + j * ld``. strided's result ``C = A @ B`` is a fresh row-major
m x n tensor, and a row-major m x n matrix *is* the column-major n x m matrix C^T (ld n). As
C^T = B^T A^T, strided asks cuBLAS for the product with the operands swapped: B first.

What cuBLAS needs from an operand X (r x c, element strides sr and sc) is X^T, and a view gives
it without a copy in two cases:

- unit steps along a row (sc == 1, any row-major tensor): read column-major with ld = sr, the
  memory holds X^T itself, so the operation is ``N`` (none);
- unit steps down a column (sr == 1, a transposed view such as ``w.T``): read column-major with
  ld = sc, the memory holds X, so the operation is ``T`` (transpose).

A dim of size 1 takes any stride. Anything else (a stepped inner dim, negative or zero strides,
a leading dimension over 2**31) is copied to a contiguous tensor first: that is the only copy.

Batch dims (broadcast ones have stride 0) are coalesced across A, B and C as the iterator
coalesces a loop; the innermost one left becomes cuBLAS's batch (one stride per operand), and
any outer ones are a host loop of calls, one per index.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from strided import _core, _iter, _views
from strided._dtype import promote_types
from strided.cuda import _half, _launch
from strided.cuda._backend import backend_for

__all__ = ["matmul", "all_modules"]

_TILE = 16
# cuBLAS's dtypes: the halves through GemmStridedBatchedEx (Note [cuBLAS for half matrices] in
# _backend.py), float32 sums rounded once
_BLAS = ("float32", "float64", "complex64", "complex128", "float16", "bfloat16")
_GEOMETRY = np.dtype(
    [
        ("bsizes", "<i8", (_launch.MAX_DIMS,)),
        ("bstrides_a", "<i8", (_launch.MAX_DIMS,)),
        ("bstrides_b", "<i8", (_launch.MAX_DIMS,)),
        ("a", "<i8"),
        ("b", "<i8"),
        ("c", "<i8"),
        ("m", "<i8"),
        ("n", "<i8"),
        ("k", "<i8"),
        ("batch", "<i8"),
        ("as0", "<i8"),
        ("as1", "<i8"),
        ("bs0", "<i8"),
        ("bs1", "<i8"),
        ("nb", "<i4"),
    ],
    align=True,
)


def _instantiations():
    return [f"strided_matmul<{_launch.C_TYPES[d]}>" for d in _launch.NATIVE]


def all_modules():
    """Every (module key, source, instantiations) of this file: what CI compiles."""
    return [(("matmul",), "matmul.cu", _instantiations())]


def _dim_text(vector, first):
    """How the CPU kernel's messages name a contracted dim."""
    if vector:
        return "the only dim"
    return "the last dim" if first else "the second-to-last dim"


def _shapes(x1, x2, name="matmul"):
    """(batch shape, m, k, n, result shape), with the CPU kernel's checks and messages."""
    if x1.ndim == 0 or x2.ndim == 0:
        which = "x1" if x1.ndim == 0 else "x2"
        raise ValueError(
            f"{name}: {which} is 0-d (a scalar), but {name} needs tensors of at "
            "least 1 dim; multiply by a scalar with strided.multiply or *"
        )
    v1, v2 = x1.ndim == 1, x2.ndim == 1
    m = 1 if v1 else x1.shape[-2]
    k = x1.shape[-1]
    k2 = x2.shape[0] if v2 else x2.shape[-2]
    n = 1 if v2 else x2.shape[-1]
    # The messages are the CPU kernel's word for word (_matmul in _cpu/blas.pyx): the same call
    # must fail alike on every device (tests/test_cuda_opinfo.py compares them).
    if k != k2:
        raise ValueError(
            f"{name}: {_dim_text(v1, True)} of x1 (size {k}) must match "
            f"{_dim_text(v2, False)} of x2 (size {k2}); x1 has shape {x1.shape}, x2 has "
            f"shape {x2.shape}"
        )
    try:
        batch = _views.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    except ValueError:
        raise ValueError(
            f"{name}: the batch dims of x1 {x1.shape[:-2]} and x2 {x2.shape[:-2]} cannot be "
            f"broadcast together (sizes must be equal, or one of them 1); x1 has shape "
            f"{x1.shape}, x2 has shape {x2.shape}"
        ) from None
    rshape = tuple(batch) + (() if v1 else (m,)) + (() if v2 else (n,))
    return tuple(batch), m, k, n, rshape


# Note [Planned cuBLAS calls in eager mode]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# On a GPU the eager matmuls of a small training step cost their host work: the shape checks,
# promotion, reading each operand as column-major and coalescing the batch dims (gemm_calls)
# took longer than cuBLAS's own call. Everything they decide depends only on the operands'
# dtypes, shapes and strides (in elements), never on their addresses or values: the calls'
# transposes, M, N, K, leading dimensions, batch strides and count, and the byte offsets of
# each call from the operands' first elements. So the eager path keeps that answer, as a
# compiled program keeps its matmuls' calls (Note [A compiled matmul's cuBLAS call] in
# strided/_compile/program.py), under the key (dtype of x1, dtype of x2, shape of x1, shape
# of x2, strides of x1, strides of x2), and a later call with the same key only adds the
# three data pointers of this call to the kept offsets. It cannot go stale: the key holds
# every input of the plan; the storage offset enters through ``data_ptr()``, read per call;
# the device and the stream are not part of the plan (the result is allocated on x1's device
# per call, and ``backend.gemm`` takes the current stream when it calls cuBLAS). Only the
# plain case is kept: both dtypes the product's, a cuBLAS dtype, every dim within cuBLAS's
# int, k > 0, a non-empty result, and no operand copied (a copy's address is a new tensor's,
# not an offset from the input's). ``_GEMM_PLANS`` is a table of Note [Kept launch plans] in
# _launch.py.

_GEMM_PLANS = _launch.KeptPlans()


def _planned(plan, x1, x2, out):
    """``x1 @ x2`` by a kept plan (Note [Planned cuBLAS calls in eager mode])."""
    dtype, cshape, rshape, calls = plan
    device = x1.device
    if out is not None:
        _iter.check_out("matmul", out, rshape, dtype, device)
    c = _core._empty(cshape, dtype, device)
    p1, p2, pc = x1.data_ptr(), x2.data_ptr(), c.data_ptr()
    gemm, name = backend_for(device).gemm, dtype.name
    for ob, oa, n, m, k, b_off, ldb, sb, a_off, lda, sa, c_off, ldc, sc, count in calls:
        gemm(
            name, ob, oa, n, m, k,
            p2 + b_off, ldb, sb, p1 + a_off, lda, sa, pc + c_off, ldc, sc, count,
        )  # fmt: skip
    if cshape != rshape:
        c = c.reshape(rshape)
    if out is None:
        return c
    from strided.cuda._copy import copy_

    return copy_(out, c)


def _keep_plan(key, x1, x2, c, dtype, rshape, calls, operands):
    """Keep the plan of a plain call (Note [Planned cuBLAS calls in eager mode])."""
    a, b = operands
    p1, p2, pc = x1.data_ptr(), x2.data_ptr(), c.data_ptr()
    if a.data_ptr() != p1 or b.data_ptr() != p2:  # an operand was copied
        return
    _GEMM_PLANS.keep(
        key,
        (
            dtype,
            c.shape,
            rshape,
            tuple(
                (ob, oa, n, m, k, bp - p2, ldb, sb, ap - p1, lda, sa, cp - pc, ldc, sc, count)
                for ob, oa, n, m, k, bp, ldb, sb, ap, lda, sa, cp, ldc, sc, count in calls
            ),
        ),
    )


def matmul(x1, x2, out=None):
    """The CUDA kernel of ``strided.matmul`` (see Note [CUDA matmul])."""
    if x1.device is not x2.device:
        raise RuntimeError(
            f"matmul: expected both tensors on one device, got {x1.device} and {x2.device}"
        )
    key = (x1.dtype, x2.dtype, x1.shape, x2.shape, x1.stride(), x2.stride())
    plan = _GEMM_PLANS.get(key)
    if plan is not None:
        return _planned(plan, x1, x2, out)
    batch, m, k, n, rshape = _shapes(x1, x2)
    dtype = promote_types(x1.dtype, x2.dtype)
    if out is not None:  # checked before any work, so that a refused out= costs nothing
        # as the CPU kernel: out= on another device is an error, not a copy across the bus (and
        # CPU inputs reach this kernel when only out= is on a CUDA device): Note [Checking out=]
        # in _iter.pyx
        _iter.check_out("matmul", out, rshape, dtype, x1.device)
    if dtype.name in _launch.HALVES and max(m, n, k) > _INT32_MAX:
        # past cuBLAS's int (CuPy has no bfloat16 product to split them): Note [CUDA half
        # precision through float32], a float32 product rounded once
        result = matmul(_half.widen(x1.astype(dtype)), _half.widen(x2.astype(dtype)))
        if out is not None:
            return _half.into(out, result)
        return _half.narrow(result, dtype)
    a = x1 if x1.dtype is dtype else x1.astype(dtype)
    b = x2 if x2.dtype is dtype else x2.astype(dtype)
    a = a.reshape(1, -1) if a.ndim == 1 else a
    b = b.reshape(-1, 1) if b.ndim == 1 else b
    c = _core._empty(tuple(batch) + (m, n), dtype, x1.device)
    if c.numel():
        backend = backend_for(c.device)
        if dtype.name not in _BLAS:
            _tiled(a, b, c, batch, m, k, n)
        elif k == 0:  # an empty sum: zeros (cuBLAS is not asked to write them)
            backend.memset(c.data_ptr(), 0, c.nbytes)
        elif max(m, n, k) <= _INT32_MAX:
            calls, operands = gemm_calls(a, b, c, batch, m, k, n)
            for call in calls:  # operands (copies among them) stay alive until the calls
                backend.gemm(dtype.name, *call)
            if a is x1 and b is x2:  # no cast, no 1-D operand
                _keep_plan(key, x1, x2, c, dtype, rshape, calls, operands)
            del operands
        else:  # dims past cuBLAS's int: CuPy splits them (the GPU is the only such device)
            import cupy

            cupy.matmul(cupy.asarray(a), cupy.asarray(b), out=cupy.asarray(c))
    if c.shape != rshape:  # a 1-D operand's dim dropped (a view: only where needed, as the
        c = c.reshape(rshape)  # engine copies a gradient that is a view of another tensor)
    if out is None:
        return c
    from strided.cuda._copy import copy_

    return copy_(out, c)


_INT32_MAX = 2**31 - 1


def _as_column_major(x):
    """``(x, op, ld)``: how cuBLAS reads the last two dims of ``x`` (r x c) as X^T, copying
    ``x`` first when its strides allow neither reading (Note [cuBLAS on strided views])."""
    r, c = x.shape[-2:]
    read = column_major_op(r, c, *x.stride()[-2:])
    if read is not None:
        return (x, *read)
    x = x.contiguous()  # a stepped or reversed inner dim, stride 0 inside a matrix, a huge ld
    return x, "N", max(c, 1)


def column_major_op(r, c, sr, sc):
    """``(op, ld)``: how cuBLAS reads an r x c matrix of strides (sr, sc) in place, or None
    when it cannot (``_as_column_major`` then copies). A compiled plan asks once, at capture
    (Note [A compiled matmul's cuBLAS call] in strided/_compile/program.py)."""
    if sc == 1 or c == 1:  # X^T in place: rows of X are columns, ld is the row step
        ld = sr if r > 1 else max(c, 1)
        if max(c, 1) <= ld <= _INT32_MAX:
            return "N", ld
    if sr == 1 or r == 1:  # X in place, read transposed: ld is the column step
        ld = sc if c > 1 else max(r, 1)
        if max(r, 1) <= ld <= _INT32_MAX:
            return "T", ld
    return None


def _batch_loops(batch, strides):
    """The batch dims coalesced across operands: ``[(size, (stride per operand))]``, outermost
    first, size-1 dims dropped (strides in elements; broadcast dims have stride 0)."""
    sizes, st = _iter.loop_dims(batch, strides)  # the iterator's coalescing, order kept
    return [(n, tuple(s[d] for s in st)) for d, n in enumerate(sizes)][::-1]


def gemm_calls(a, b, c, batch, m, k, n):
    """``(calls, operands)``: the cuBLAS calls that compute ``c = a @ b`` (a: [...] x m x k,
    b: [...] x k x n, c a fresh contiguous batch + (m, n)), each a tuple of
    ``gemmStridedBatched``'s arguments after the dtype: ``(transa, transb, M, N, K, A, lda,
    strideA, B, ldb, strideB, C, ldc, strideC, batch_count)``, addresses in bytes, strides in
    elements; and the tensors they read, which the caller keeps alive until the calls are
    issued (one may be a fresh copy). See Note [cuBLAS on strided views]: cuBLAS computes
    C^T = B^T A^T, so b is its A and a its B."""
    nb = len(batch)
    a, op_a, lda = _as_column_major(a)  # before broadcasting: a copy stays as small as a
    b, op_b, ldb = _as_column_major(b)
    a = a.expand(tuple(batch) + a.shape[-2:]) if a.shape[:-2] != batch else a
    b = b.expand(tuple(batch) + b.shape[-2:]) if b.shape[:-2] != batch else b
    item = c.itemsize
    loops = _batch_loops(batch, [b.stride()[:nb], a.stride()[:nb], c.stride()[:nb]])
    count, inner = 1, (0, 0, 0)
    if loops and min(loops[-1][1]) >= 0 and loops[-1][0] <= _INT32_MAX:
        count, inner = loops.pop()  # the innermost batch dim is cuBLAS's own batch
    calls = []
    for index in itertools.product(*[range(size) for size, _ in loops]):
        offset = [
            sum(i * st[w] for i, (_, st) in zip(index, loops, strict=True)) * item for w in range(3)
        ]
        calls.append(
            (op_b, op_a, n, m, k,
             b.data_ptr() + offset[0], ldb, inner[0],
             a.data_ptr() + offset[1], lda, inner[1],
             c.data_ptr() + offset[2], max(n, 1), inner[2], count)
        )  # fmt: skip
    return calls, (a, b)


def _tiled(a, b, c, batch, m, k, n):
    nb = len(batch)
    ea = a.expand(tuple(batch) + a.shape[-2:]) if a.ndim - 2 < nb or a.shape[:-2] != batch else a
    eb = b.expand(tuple(batch) + b.shape[-2:]) if b.ndim - 2 < nb or b.shape[:-2] != batch else b
    item = c.itemsize
    g = np.zeros((), dtype=_GEOMETRY)
    if nb > _launch.MAX_DIMS:
        raise NotImplementedError(f"matmul: more than {_launch.MAX_DIMS} batch dims")
    sa, sb = ea.stride(), eb.stride()
    for j, d in enumerate(range(nb - 1, -1, -1)):  # innermost first
        g["bsizes"][j] = batch[d]
        g["bstrides_a"][j] = sa[d] * item
        g["bstrides_b"][j] = sb[d] * item
    g["nb"] = nb
    g["a"], g["b"], g["c"] = ea.data_ptr(), eb.data_ptr(), c.data_ptr()
    g["m"], g["n"], g["k"] = m, n, k
    g["batch"] = math.prod(batch)
    g["as0"], g["as1"] = sa[-2] * item, sa[-1] * item
    g["bs0"], g["bs1"] = sb[-2] * item, sb[-1] * item
    backend = backend_for(c.device)
    fname = f"strided_matmul<{_launch.C_TYPES[c.dtype.name]}>"
    fn = _launch.get_function(backend, ("matmul",), "matmul.cu", _instantiations, fname)
    grid = (math.ceil(n / _TILE), math.ceil(m / _TILE), min(math.prod(batch), 65535))
    backend.launch(fn, grid, (_TILE, _TILE), (g[()],))
