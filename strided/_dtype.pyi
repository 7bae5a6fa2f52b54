# Type stub for the compiled module strided/_dtype.pyx.
from typing import Any

class DType:
    name: str
    num: int
    itemsize: int
    kind: str
    c_type: str
    cuda_type: str
    numpy: Any
    format: str
    @property
    def is_floating_point(self) -> bool: ...
    @property
    def is_complex(self) -> bool: ...
    @property
    def is_signed(self) -> bool: ...
    @property
    def bits(self) -> int: ...
    @property
    def dtype(self) -> Any: ...  # the numpy.dtype (np.dtype(strided.float32))
    def __getattr__(self, name: str) -> Any: ...  # the numpy.dtype's attribute

bool_: DType
int8: DType
int16: DType
int32: DType
int64: DType
uint8: DType
uint16: DType
uint32: DType
uint64: DType
float32: DType
float64: DType
complex64: DType
complex128: DType
float16: DType
bfloat16: DType

def all_dtypes() -> tuple[DType, ...]: ...
def as_dtype(obj: Any) -> DType: ...
def promote_types(a: Any, b: Any) -> DType: ...
def result_type(*arrays_and_dtypes: Any) -> DType: ...
def can_cast(from_: Any, to: Any, casting: str = ...) -> bool: ...
def isdtype(dtype: Any, kind: Any) -> bool: ...
def set_default_dtype(d: Any) -> None: ...
def get_default_dtype() -> DType: ...
def default_float_dtype() -> DType: ...
def float_for_integers(d: DType) -> DType: ...

class finfo:
    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    tiny: float
    resolution: float
    precision: int
    dtype: DType
    def __init__(self, type: Any) -> None: ...

class iinfo:
    bits: int
    max: int
    min: int
    dtype: DType
    def __init__(self, type: Any) -> None: ...
