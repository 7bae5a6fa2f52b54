# Type stub for the compiled module strided/_cpu/unary.pyx (rendered from unary.pyx.tp).
from typing import Any

from strided._core import TensorBase

OPS: dict[str, tuple[int, str]]
RESULT_KINDS: dict[str, str]

def unary(name: str, x: Any, out: TensorBase | None = ...) -> TensorBase: ...
def unary_plan(name: str, x: Any, out: TensorBase | None = ...) -> Any: ...
def gelu_erf(x: TensorBase, inv_sqrt2: float) -> TensorBase | None: ...
