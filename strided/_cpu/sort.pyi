# Type stub for the compiled module strided/_cpu/sort.pyx (rendered from sort.pyx.tp).
from strided._core import TensorBase

def sort_axis(
    x: TensorBase, axis: int, descending: bool, want_values: bool, want_indices: bool
) -> tuple[TensorBase | None, TensorBase | None]: ...
def topk_axis(x: TensorBase, axis: int, k: int, largest: bool) -> tuple[TensorBase, TensorBase]: ...
