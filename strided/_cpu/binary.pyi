# Type stub for the compiled module strided/_cpu/binary.pyx (rendered from binary.pyx.tp).
from collections.abc import Callable
from typing import Any

from strided._core import TensorBase

OPS: dict[str, tuple[int, str]]
RESULT_KINDS: dict[str, str]

def binary(name: str, a: Any, b: Any, out: TensorBase | None = ...) -> TensorBase: ...
def binary_plan(name: str, a: Any, b: Any, out: TensorBase | None = ...) -> Any: ...
def where(cond: Any, a: Any, b: Any, out: TensorBase | None = ...) -> TensorBase: ...
def where_plan(cond: Any, a: Any, b: Any, out: TensorBase | None = ...) -> Any: ...
def set_front_end(
    possible: list[int],
    forced: list[int],
    asarray: Callable[..., Any],
    call: Callable[..., Any],
) -> None: ...
def make_binary(name: str, reflected: bool = ...) -> Callable[..., TensorBase]: ...
