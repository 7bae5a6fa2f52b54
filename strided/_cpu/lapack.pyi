# Type stub for the compiled module strided/_cpu/lapack.pyx.
from strided._core import TensorBase

def run_batch(
    routine: str,
    a: TensorBase,
    b: TensorBase | None,
    ipiv: TensorBase | None,
    info: TensorBase,
    m: int,
    n: int,
    k: int = ...,
    nrhs: int = ...,
    c1: str = ...,
    c2: str = ...,
    b2: TensorBase | None = ...,
    v: TensorBase | None = ...,
) -> None: ...
def svd(
    x: TensorBase, full_matrices: bool = ..., compute_uv: bool = ..., name: str = ...
) -> tuple[TensorBase, TensorBase, TensorBase] | TensorBase: ...
def lu_det(lu: TensorBase, ipiv: TensorBase, out: TensorBase) -> None: ...
