# Type stub for the compiled module strided/_cpu/reduce.pyx (rendered from reduce.pyx.tp).
from strided._core import TensorBase
from strided._dtype import DType

OPS: dict[str, tuple[int, str]]

def reduce(
    name: str,
    x: TensorBase,
    dims: tuple[int, ...],
    keepdim: bool,
    acc_dtype: DType | None,
    with_values: bool = False,
) -> TensorBase | tuple[TensorBase, TensorBase]: ...
def max_backward(
    x: TensorBase, result: TensorBase, grad: TensorBase, dims: tuple[int, ...]
) -> TensorBase | None: ...
def softmax_rows(x: TensorBase, dim: int, take_log: bool) -> TensorBase | None: ...
def softmax_backward_rows(
    grad: TensorBase, result: TensorBase, dim: int, take_log: bool
) -> TensorBase | None: ...
def layer_norm_rows(
    x: TensorBase, k: int, weight: TensorBase | None, bias: TensorBase | None, eps: float
) -> TensorBase | None: ...
def layer_norm_backward_rows(
    grad: TensorBase,
    x: TensorBase,
    k: int,
    weight: TensorBase | None,
    eps: float,
    param_grads: bool,
) -> tuple[TensorBase, TensorBase | None] | None: ...
