"""The dispatcher's ``call`` and ``redispatch``, compiled (Note [The compiled call] in
_dispatch.py)."""

from collections.abc import Callable
from typing import Any

def setup(
    kernels: dict[str, dict[str, Any]],
    possible: list[int],
    general: Callable[..., Any],
    redispatch_general: Callable[..., Any],
    bits: tuple[int, int, int, int],
) -> None: ...
def set_hook(hook: Callable[[str, tuple, dict], bool] | None) -> None: ...
def call(name: str, /, *args: Any, **kwargs: Any) -> Any: ...
def redispatch(name: str, below: str, /, *args: Any, **kwargs: Any) -> Any: ...
