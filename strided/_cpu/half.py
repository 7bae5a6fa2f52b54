"""float16 and bfloat16 in the CPU kernels that have no loops of their own for them.

Note [Half precision through float32]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A half tensor is stored in 16 bits and computed in float (Note [Half precision rows] in
strided/_dtype_table.py). The kernels that move or convert elements one at a time have loops of
their own for the two half rows: casts (``copy.pyx.tp``), the elementwise ops (``binary`` and
``unary``: load, compute in float, round once), ``where``, gathers and scatters (which only move
2-byte words) and the scatter-add. Every other CPU kernel (sorts, selection, unique, search,
scans, reductions, matmul, the random fills) begins with ``if is_half(x)`` and runs its float32
loops on a widened copy:

- widening is exact, so a sort, a search, a maximum or a unique gives exactly the answer a
  half loop would (NaNs included: they stay NaN, and keep their order);
- a sum, a product, a running sum or a matrix product accumulates in float32 and is rounded to
  the half type once, at the end: the arithmetic NumPy (for float16 sums) and PyTorch (for both
  types) define, and more accurate than rounding after every addition.

The price is the copy: per element, 2 bytes read and 4 written, then read again by the float32
kernel. PyTorch's CPU kernels convert inside their loops instead (``acc_type``), which saves that
traffic; doing the same here is a loop per half row in each template (the way the elementwise
ops do it). Sums do it (5x faster: Note [Half sums widened by the leaf] in reduce.pyx.tp), and
a bfloat16 matmul on a CPU with AVX512_BF16 packs its operands into the pairs that vdpbf16ps
multiplies, widening nothing (3.8x faster at 512: Note [bfloat16 matmul through vdpbf16ps] in
blas.pyx); the other kernels are left for when they need the speed.
"""

from strided._cpu.copy import contiguous_copy, copy_
from strided._dtype import bfloat16, float16, float32

__all__ = ["is_half", "widen", "narrow", "into"]


def is_half(t):
    """Whether tensor ``t`` (or None) is float16 or bfloat16."""
    return t is not None and (t.dtype is float16 or t.dtype is bfloat16)


def widen(t):
    """``t`` as a fresh float32 tensor if it is a half tensor (exactly), else ``t`` itself."""
    return contiguous_copy(t, float32) if is_half(t) else t


def narrow(t, dtype):
    """The float32 result ``t`` rounded to the half ``dtype`` (None stays None)."""
    return None if t is None else contiguous_copy(t, dtype)


def into(out, result):
    """Write ``result`` into ``out`` (rounding to out's dtype) and return ``out``."""
    copy_(out, result)
    return out
