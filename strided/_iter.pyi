# Type stub for the compiled module strided/_iter.pyx.
from typing import Any

def _plan_for(shape: Any, operands: Any) -> dict[str, Any]: ...
def set_device_copy(fn: Any) -> None: ...

class ElementwisePlan:
    nin: int
    dtype: Any
    out_dtype: Any
    out: Any
    name: str
    parallel: bool
    @property
    def shape(self) -> tuple[int, ...]: ...
    def explain(self) -> str: ...
