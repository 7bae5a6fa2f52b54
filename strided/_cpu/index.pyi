# Type stub for the compiled module strided/_cpu/index.pyx.
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
def index_get(
    t: TensorBase, off: IndexOffsets, dim_map: tuple[int, ...], pos: int, out: TensorBase
) -> TensorBase: ...
def index_put(
    t: TensorBase,
    off: IndexOffsets,
    dim_map: tuple[int, ...],
    pos: int,
    values: TensorBase,
    accumulate: bool = ...,
) -> TensorBase: ...
def mask_offsets(mask: TensorBase, t: TensorBase, dim: int) -> IndexOffsets: ...
def is_advanced(index: Any) -> bool: ...
def last_index_plan() -> dict[str, Any] | None: ...
