"""float16 and bfloat16 in the CUDA kernels that have no instantiations for them.

Note [CUDA half precision through float32]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The CUDA side follows the CPU's plan (Note [Half precision through float32] in
strided/_cpu/half.py) kernel for kernel. The kernels that move or convert elements one at a
time instantiate the two half types (``half_t``, ``bfloat16_t``: Note [CUDA half types] in
kernels/common.cuh): casts and fills (copy.cu), the elementwise ops and ``where``
(elementwise.cu: ``half_op<op>`` widens, runs the float functor, rounds once), and the index
moves and scatter-adds (index.cu). Two kernel families read the halves themselves and
accumulate in float32: matmul (cuBLAS's GemmStridedBatchedEx, Note [cuBLAS for half matrices]
in _backend.py) and the reductions sum, prod, max, min, argmax and argmin (``red_half``,
Note [Half reductions in one pass] in kernels/reduce.cu: one pass over the halves, each result
rounded once). Every other CUDA kernel (scans, sorts, unique, searchsorted, the random fills)
takes the native rows only (``_launch.NATIVE``) and begins with ``if is_half(x)``: it runs its
float32 kernel on a widened copy (exact) and rounds the result once, so that a CUDA result is
the CPU's, bit for bit where the float32 kernels agree (sorts, scans of a few values, matmul
and sums of values whose float32 sums are exact; sums of many values differ in the order of
their additions, on a GPU as for float32).
"""

from strided._cpu.half import is_half
from strided._dtype import float32

__all__ = ["is_half", "widen", "narrow", "into"]


def widen(t):
    """The CUDA tensor ``t`` as a fresh float32 tensor if it is a half tensor, else ``t``."""
    from strided.cuda._copy import contiguous_copy

    return contiguous_copy(t, float32) if is_half(t) else t


def narrow(t, dtype):
    """The float32 CUDA result ``t`` rounded to the half ``dtype`` (None stays None)."""
    from strided.cuda._copy import contiguous_copy

    return None if t is None else contiguous_copy(t, dtype)


def into(out, result):
    """Write ``result`` into the CUDA tensor ``out`` (rounding to its dtype); return ``out``."""
    from strided.cuda._copy import copy_

    copy_(out, result)
    return out
