"""The dispatcher's ``call``, compiled (Note [The compiled call] in _dispatch.py)."""

from collections.abc import Callable
from typing import Any

def setup(
    kernels: dict[str, dict[str, Any]],
    possible: list[int],
    general: Callable[..., Any],
    not_inline: int,
) -> None: ...
def set_hook(hook: Callable[[str, tuple, dict], bool] | None) -> None: ...
def call(name: str, /, *args: Any, **kwargs: Any) -> Any: ...
