# Type stub for strided/_dlpack.pyx: DLPack export and import. See Note [DLPack] there.

from enum import IntEnum
from typing import Any

from strided._core import TensorBase

__all__ = ["DLDeviceType", "to_dlpack", "dlpack_device", "from_dlpack_capsule"]

class DLDeviceType(IntEnum):
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17

# The capsule is a PyCapsule (types.CapsuleType from Python 3.13 on).
def to_dlpack(
    t: TensorBase,
    *,
    max_version: tuple[int, int] | None = None,
    dl_device: tuple[int, int] | None = None,
    copy: bool | None = None,
) -> Any: ...
def dlpack_device(t: TensorBase) -> tuple[DLDeviceType, int]: ...
def from_dlpack_capsule(capsule: Any) -> TensorBase: ...
