# Type stub for the compiled module strided/_cpu/offsets.pyx.
from typing import Any

from strided._core import TensorBase

class IndexOffsets:
    offsets: TensorBase
    wrap: int
    scale: int
    tensor: TensorBase
    dims: tuple[int, ...]
    checked: bool
    name: Any

def index_offsets(
    t: TensorBase,
    dims: tuple[int, ...],
    indices: tuple[TensorBase, ...],
    names: Any = ...,
    check: bool = ...,
) -> IndexOffsets: ...
def mask_offsets(mask: TensorBase, t: TensorBase, dim: int) -> IndexOffsets: ...
