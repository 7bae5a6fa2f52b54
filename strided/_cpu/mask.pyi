# Type stub for the compiled module strided/_cpu/mask.pyx.
from strided._core import TensorBase

def nonzero(mask: TensorBase, coords_last: bool) -> TensorBase: ...
