# Type stub for the compiled module strided/cuda/_params.pyx.
from typing import Any

def pack(args: tuple) -> tuple[bytearray, int]: ...
def elementwise_geometry(
    plan: Any, max_dims: int
) -> tuple[bytes, bytes, int, bool, bool]: ...
def geometry_bytes(
    shape: Any, strides: Any, data: Any, scalars: Any, max_dims: int
) -> bytes: ...
