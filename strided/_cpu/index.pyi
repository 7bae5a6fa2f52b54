# Type stub for the compiled module strided/_cpu/index.pyx (rendered from index.pyx.tp).
from typing import Any

from strided._core import TensorBase
from strided._cpu.offsets import IndexOffsets

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
def is_advanced(index: Any) -> bool: ...
def last_index_plan() -> dict[str, Any] | None: ...
