"""strided: a tensor library that rebuilds PyTorch's internals in readable Cython and Python.

Start reading at ``_core.pyx`` (TensorBase, and a map of the files below it: Storage, Device,
the allocator), then ``_views.pyx`` (views are arithmetic on strides), ``_iter.pyx`` (the loop
plan) and ``_cpu/copy.pyx.tp`` (the first kernels).
This file only re-exports.
"""

from strided import (
    _tensor,  # noqa: F401  (registers Tensor with _core before anything is made)
    autograd,  # reverse-mode autodiff: adds requires_grad, backward() & co to Tensor
    cuda,  # the CUDA backend (registers its allocator; needs no CuPy or GPU to import)
    fft,  # the Array API fft extension, as numpy.fft / torch.fft
    linalg,  # the Array API linalg extension, as numpy.linalg / torch.linalg
    nn,  # modules, layers, losses (above autograd), as torch.nn
    optim,  # SGD, Adam, AdamW, as torch.optim
    random,  # the strided.random module, as torch.random / numpy.random
)
from strided._config import are_deterministic_algorithms_enabled, use_deterministic_algorithms
from strided._core import Device, Storage, device
from strided._cpu.blas import last_matmul_plan
from strided._cpu.copy import last_copy_plan
from strided._dispatch import trace_dispatch
from strided._dtype import (
    DType,
    bfloat16,
    can_cast,
    complex64,
    complex128,
    finfo,
    float16,
    float32,
    float64,
    get_default_dtype,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    isdtype,
    promote_types,
    result_type,
    set_default_dtype,
    uint8,
    uint16,
    uint32,
    uint64,
)
from strided._dtype import bool_ as bool  # noqa: A001 - the Array API name shadows the builtin
from strided._errstate import errstate, geterr, geterrcall, seterr, seterrcall
from strided._format import (
    array2string,
    array_repr,
    array_str,
    base_repr,
    binary_repr,
    get_printoptions,
    printoptions,
    set_printoptions,
)
from strided._info import __array_namespace_info__
from strided._numpy_protocols import is_numpy_fallback_enabled, numpy_fallback
from strided._ops.arrayinfo import *  # noqa: F403 - ndim, shares_memory, ndindex, windows, ...
from strided._ops.arrayinfo import __all__ as _arrayinfo_names
from strided._ops.arrays import *  # noqa: F403 - NumPy's array manipulation routines
from strided._ops.arrays import __all__ as _arrays_names
from strided._ops.bits import *  # noqa: F403 - packbits, unpackbits
from strided._ops.bits import __all__ as _bits_names
from strided._ops.calculus import *  # noqa: F403 - gradient, trapezoid
from strided._ops.calculus import __all__ as _calculus_names
from strided._ops.construction import *  # noqa: F403 - NumPy's array, logspace, tri, ...
from strided._ops.construction import __all__ as _construction_names
from strided._ops.creation import (
    arange,
    asarray,
    empty,
    empty_like,
    eye,
    from_dlpack,
    from_numpy,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
from strided._ops.elementwise import *  # noqa: F403 - the elementwise ops, listed in its __all__
from strided._ops.elementwise import __all__ as _elementwise_names
from strided._ops.functional import *  # noqa: F403 - apply_along_axis, vectorize, piecewise
from strided._ops.functional import __all__ as _functional_names
from strided._ops.histograms import *  # noqa: F403 - histogram, bincount, diff, interp, ...
from strided._ops.histograms import __all__ as _histograms_names
from strided._ops.index_tricks import *  # noqa: F403 - r_, c_, indices, unravel_index, ...
from strided._ops.index_tricks import __all__ as _index_tricks_names
from strided._ops.indexing import (
    gather,
    index_add,
    index_select,
    masked_fill,
    nonzero,
    scatter,
    scatter_add,
    searchsorted,
    take,
    take_along_axis,
)
from strided._ops.joining import *  # noqa: F403 - concatenate, the stacks and the splits
from strided._ops.joining import __all__ as _joining_names
from strided._ops.linalg import addmm, bmm, matmul, mm, outer, tensordot, vecdot
from strided._ops.mathfuncs import *  # noqa: F403 - NumPy's functions composed of elementwise ops
from strided._ops.mathfuncs import __all__ as _mathfuncs_names
from strided._ops.norms import matrix_norm, vector_norm
from strided._ops.padding import pad
from strided._ops.placing import *  # noqa: F403 - put, place, select, choose, ...
from strided._ops.placing import __all__ as _placing_names
from strided._ops.polynomial import *  # noqa: F403 - polyfit, polyval, roots, vander, ...
from strided._ops.polynomial import __all__ as _polynomial_names
from strided._ops.products import *  # noqa: F403 - einsum, dot, kron, cross, convolve, ...
from strided._ops.products import __all__ as _products_names
from strided._ops.quantiles import *  # noqa: F403 - NumPy's order statistics: median, quantile
from strided._ops.quantiles import __all__ as _quantiles_names
from strided._ops.reduction import *  # noqa: F403 - the reductions, listed in its __all__
from strided._ops.reduction import __all__ as _reduction_names
from strided._ops.scan import cumprod, cumsum, cumulative_prod, cumulative_sum
from strided._ops.sets import *  # noqa: F403 - NumPy's set routines, searches and partitions
from strided._ops.sets import __all__ as _sets_names
from strided._ops.shape import (
    cat,
    concat,
    meshgrid,
    repeat,
    repeat_interleave,
    roll,
    stack,
    tile,
    tril,
    triu,
)
from strided._ops.sorting import (
    argsort,
    sort,
    sort_complex,
    topk,
    unique,
    unique_all,
    unique_counts,
    unique_inverse,
    unique_values,
)
from strided._ops.stats import *  # noqa: F403 - NumPy's statistics: nan-aware, averages, cov
from strided._ops.stats import __all__ as _stats_names
from strided._ops.ufunclike import *  # noqa: F403 - cbrt, gcd, frexp, i0, isposinf, unwrap, ...
from strided._ops.ufunclike import __all__ as _ufunclike_names
from strided._ops.views import (
    as_strided,
    astype,
    broadcast_arrays,
    broadcast_shapes,
    broadcast_to,
    chunk,
    clone,
    contiguous,
    diagonal,
    expand,
    expand_dims,
    flatten,
    flip,
    matrix_transpose,
    moveaxis,
    movedim,
    narrow,
    permute,
    permute_dims,
    reshape,
    squeeze,
    swapaxes,
    transpose,
    unbind,
    unflatten,
    unsqueeze,
    unstack,
    view,
)
from strided._tensor import Tensor
from strided._threads import get_num_threads, set_num_threads
from strided.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from strided.random import manual_seed, seed
from strided.serialization import (
    fromfile,
    fromiter,
    fromstring,
    genfromtxt,
    load,
    loadtxt,
    save,
    savetxt,
    savez,
    savez_compressed,
)

__version__ = "0.1.0"
__array_api_version__ = "2025.12"  # see Note [Which Array API versions] in _info.py

e = 2.718281828459045
pi = 3.141592653589793
inf = float("inf")
nan = float("nan")
newaxis = None
euler_gamma = 0.5772156649015329  # NumPy's constant: Euler and Mascheroni's gamma

__all__ = [
    "Device",
    "DType",
    "Storage",
    "Tensor",
    "__array_api_version__",
    "__array_namespace_info__",
    "__version__",
    "addmm",
    "arange",
    "as_strided",
    "asarray",
    "autograd",
    "astype",
    "bmm",
    "bool",
    "broadcast_arrays",
    "broadcast_shapes",
    "broadcast_to",
    "can_cast",
    "cat",
    "cuda",
    "chunk",
    "clone",
    "complex64",
    "complex128",
    "float16",
    "bfloat16",
    "concat",
    "contiguous",
    "cumprod",
    "cumsum",
    "cumulative_prod",
    "cumulative_sum",
    "device",
    "diagonal",
    "e",
    "euler_gamma",
    "empty",
    "enable_grad",
    "errstate",
    "empty_like",
    "expand",
    "expand_dims",
    "eye",
    "fft",
    "finfo",
    "flatten",
    "flip",
    "float32",
    "float64",
    "from_dlpack",
    "from_numpy",
    "full",
    "full_like",
    "gather",
    "fromfile",
    "fromiter",
    "fromstring",
    "genfromtxt",
    "array2string",
    "array_repr",
    "array_str",
    "base_repr",
    "binary_repr",
    "get_default_dtype",
    "get_num_threads",
    "geterr",
    "geterrcall",
    "get_printoptions",
    "iinfo",
    "inference_mode",
    "index_add",
    "index_select",
    "inf",
    "int8",
    "int16",
    "int32",
    "int64",
    "is_grad_enabled",
    "isdtype",
    "last_copy_plan",
    "last_matmul_plan",
    "linalg",
    "linspace",
    "load",
    "loadtxt",
    "manual_seed",
    "masked_fill",
    "matmul",
    "matrix_norm",
    "matrix_transpose",
    "meshgrid",
    "mm",
    "moveaxis",
    "movedim",
    "nan",
    "narrow",
    "newaxis",
    "nn",
    "no_grad",
    "nonzero",
    "numpy_fallback",
    "is_numpy_fallback_enabled",
    "ones",
    "ones_like",
    "optim",
    "outer",
    "pad",
    "permute",
    "permute_dims",
    "pi",
    "printoptions",
    "promote_types",
    "random",
    "repeat",
    "repeat_interleave",
    "reshape",
    "result_type",
    "roll",
    "save",
    "savetxt",
    "savez",
    "savez_compressed",
    "scatter",
    "scatter_add",
    "searchsorted",
    "seed",
    "set_default_dtype",
    "set_printoptions",
    "seterr",
    "seterrcall",
    "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled",
    "set_grad_enabled",
    "set_num_threads",
    "squeeze",
    "stack",
    "swapaxes",
    "take",
    "take_along_axis",
    "tensor",
    "tensordot",
    "tile",
    "transpose",
    "tril",
    "triu",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "unbind",
    "unflatten",
    "unsqueeze",
    "unstack",
    "vecdot",
    "vector_norm",
    "view",
    "zeros",
    "zeros_like",
    "argsort",
    "sort",
    "sort_complex",
    "topk",
    "unique",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
    "trace_dispatch",
    *_elementwise_names,
    *_reduction_names,
    *_arrays_names,
    *_joining_names,
    *_mathfuncs_names,
    *_products_names,
    *_sets_names,
    *_stats_names,
    *_quantiles_names,
    *_histograms_names,
    *_construction_names,
    *_calculus_names,
    *_functional_names,
    *_index_tricks_names,
    *_placing_names,
    *_polynomial_names,
    *_ufunclike_names,
    *_arrayinfo_names,
    *_bits_names,
]

# tracing, custom operators and the compiler (issue 24): strided.fx, strided.library and
# strided.compile, imported last because they build on everything above
from strided import fx, library  # noqa: E402
from strided._compile import compile  # noqa: E402, A004 - torch.compile's name

__all__ += ["compile", "fx", "library"]
