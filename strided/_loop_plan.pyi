# Type stub for the compiled module strided/_loop_plan.pyx.
from typing import Any

def _plan_for(shape: Any, operands: Any) -> dict[str, Any]: ...
def loop_dims(
    shape: Any, strides: Any, reorder: bool = False
) -> tuple[list[int], list[list[int]]]: ...
