# Type stub for the compiled module strided/_cpu/select.pyx (rendered from select.pyx.tp).
from strided._core import TensorBase

def select_axis(
    x: TensorBase, axis: int, kth: TensorBase, want_values: bool, want_indices: bool
) -> tuple[TensorBase | None, TensorBase | None]: ...
