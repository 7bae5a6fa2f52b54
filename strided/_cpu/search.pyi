# Type stub for the compiled module strided/_cpu/search.pyx (rendered from search.pyx.tp).
from strided._core import TensorBase

def searchsorted(
    sorted_: TensorBase, values: TensorBase, out: TensorBase, right: bool
) -> TensorBase: ...
