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
def blas_info() -> dict[str, Any]: ...  # re-exported from blas_threads
def _set_blas_threads(n: int) -> None: ...
def _share_threads(share: bool = ...) -> None: ...
def _set_bf16_gemm(on: bool) -> bool: ...
