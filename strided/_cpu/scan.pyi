# Type stub for the compiled module strided/_cpu/scan.pyx (rendered from scan.pyx.tp).
from strided._core import TensorBase

OPS: dict[str, int]

def scan(name: str, x: TensorBase, axis: int, include_initial: bool) -> TensorBase: ...
