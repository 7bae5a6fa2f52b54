"""A compiled call's hot path (Note [The cost of a compiled call] in strided/_compile)."""

from typing import Any

from strided._core import TensorBase
from strided._device import Device
from strided._dtype import DType

MISS: object

class Kernel:
    release: bool
    name: str
    def __init__(self, address: int, name: str, release: bool) -> None: ...
    def __call__(self, *tensors: TensorBase) -> None: ...

def empty(shape: tuple[int, ...], dtype: DType, device: Device) -> TensorBase: ...

class FastCall:
    plan: Any
    def __init__(
        self, plan: Any = None, args: tuple = (), program: Any = None, grad_on: bool = False
    ) -> None: ...
    def __call__(self, args: tuple) -> Any: ...
