# Type stub for the compiled module strided/_iter.pyx.
from typing import Any

# re-exported from the loop plan (strided/_loop_plan.pyx)
from strided._loop_plan import _plan_for as _plan_for
from strided._loop_plan import loop_dims as loop_dims

def check_out(
    name: str,
    out: Any,
    shape: Any,
    dtype: Any = None,
    device: Any = None,
    hint: str = "",
) -> Any: ...
def _small_layout(result_kind: int, a: Any, b: Any = None, unary: bool = False) -> Any: ...
def set_device_copy(fn: Any) -> None: ...
def float_result_dtype(*inputs: Any) -> Any: ...

class ElementwisePlan:
    nin: int
    dtype: Any
    out_dtype: Any
    out: Any
    name: str
    parallel: bool
    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def write_to(self) -> Any: ...
    def geometry(self) -> tuple[Any, Any, Any, Any]: ...
    def finish_device(self) -> Any: ...
    def explain(self) -> str: ...
