# Type stub for the compiled module strided/_cpu/count.pyx.
from strided._core import TensorBase

def minmax(x: TensorBase) -> tuple[int, int] | tuple[float, float]: ...
def bincount(x: TensorBase, nbins: int, weights: TensorBase | None = ...) -> TensorBase: ...
def histogram(
    x: TensorBase,
    edges: TensorBase,
    uniform: bool,
    denom: float,
    weights: TensorBase | None = ...,
) -> TensorBase: ...
