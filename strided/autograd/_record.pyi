"""Type stub for the compiled recorder (Note [The compiled recorder] in _record.pyx)."""

from types import CodeType
from typing import Any

from strided._core import TensorBase

def setup(
    SavedTensor: type,
    meta: Any,
    gradient_edge: Any,
    finish: Any,
    inplace_log: dict,
    inplace_log_max: int,
    Kernel: type,
    possible: Any,
    not_cpu_only: int,
    pkg: str,
) -> None: ...
def user_site() -> tuple[CodeType, int] | None: ...
def needs_autograd(name: str, args: tuple, kwargs: dict[str, Any] | None) -> bool: ...

class RecordedOp:
    name: str
    entry: Any
    def __init__(self, name: str, entry: Any, run: Any, general: Any, kernels: dict) -> None: ...
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

def scatter_view(flat: TensorBase, geometry: tuple, g: TensorBase) -> bool: ...
