# Type stub for the compiled module strided/_cpu/blas.pyx.
from typing import Any

from strided._core import TensorBase

def matmul(x1: TensorBase, x2: TensorBase, out: TensorBase | None = ...) -> TensorBase: ...
def addmm(
    input: TensorBase,
    mat1: TensorBase,
    mat2: TensorBase,
    *,
    beta: Any = ...,
    alpha: Any = ...,
    out: TensorBase | None = ...,
) -> TensorBase: ...
def last_matmul_plan() -> dict[str, Any] | None: ...
from strided._cpu.blas_threads import _set_blas_threads as _set_blas_threads
from strided._cpu.blas_threads import _share_threads as _share_threads
from strided._cpu.blas_threads import blas_info as blas_info
