# Type stub for the compiled module strided/_from_numpy.pyx.
from typing import Any

from strided._core import TensorBase

def from_numpy_array(array: Any) -> TensorBase: ...
