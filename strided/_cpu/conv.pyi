# Type stub for the compiled module strided/_cpu/conv.pyx.
from strided._core import TensorBase

def tile_block(c: int, k: int, itemsize: int, tiles: int, products: int = ...) -> int: ...
def winograd_conv2d(
    x: TensorBase,
    w: TensorBase,
    bias: TensorBase | None,
    ph: int,
    pw: int,
    out: TensorBase,
    block: int = ...,
    products: int = ...,
) -> TensorBase: ...
def im2col_rows(
    x: TensorBase, kh: int, kw: int, ph: int, pw: int, rows: TensorBase
) -> TensorBase: ...
def winograd_weight_grad(
    x: TensorBase,
    grad: TensorBase,
    ph: int,
    pw: int,
    gw: TensorBase,
    block: int = ...,
    products: int = ...,
    gb: TensorBase | None = ...,
) -> TensorBase: ...
def max_pool2d_tiles(x: TensorBase, kh: int, kw: int) -> TensorBase: ...
def max_pool2d_tiles_backward(grad: TensorBase, x: TensorBase, kh: int, kw: int) -> TensorBase: ...
