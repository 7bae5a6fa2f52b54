# Type stub for the compiled module strided/_device.pyx.
from typing import Any

class Device:
    type: str
    index: int | None
    is_cpu: bool
    is_cuda: bool

def as_device(obj: Any) -> Device: ...
def device(spec: Any) -> Device: ...
