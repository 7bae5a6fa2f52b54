"""The CUDA devices the device tests run on, and ``on``, which puts a test input on one of them.

``cuda-emulated`` (strided's kernels compiled by g++ and run by the CPU emulator) is always
tested; ``cuda`` (a real GPU through CuPy) when ``cupy.is_available()``, else skipped with the
reason. ``STRIDED_REQUIRE_GPU=1`` turns that skip into a failure (for runs on a GPU machine).
"""

from __future__ import annotations

import os

import pytest

from strided import _core
from strided.cuda import _backend

__all__ = [
    "DEVICES",
    "GPU",
    "GPU_ONLY",
    "NVRTC_ONLY",
    "REQUIRE_GPU",
    "on",
    "output_pairs",
    "same_on_device",
    "standin_gpu",
]

GPU = _backend.cupy_usable()
REQUIRE_GPU = os.environ.get("STRIDED_REQUIRE_GPU") == "1"
GPU_ONLY = pytest.mark.skipif(
    not GPU and not REQUIRE_GPU, reason="no usable GPU (cupy.is_available() is False)"
)
DEVICES = ["cuda-emulated", pytest.param("cuda", marks=GPU_ONLY)]


def _nvrtc_available():
    from strided.cuda import compile_check

    return compile_check.nvrtc_available()


# Tests that compile CUDA sources with NVRTC (no GPU needed): skipped where NVRTC is missing,
# unless ``STRIDED_REQUIRE_NVRTC=1`` asks for them (then they fail instead)
NVRTC_ONLY = pytest.mark.skipif(
    os.environ.get("STRIDED_REQUIRE_NVRTC") != "1" and not _nvrtc_available(),
    reason="NVRTC is not installed (pip install 'strided[cuda]')",
)


def on(device, t):
    """``t`` on ``device`` with the same layout: the same storage size, offset and strides."""
    storage = _core.Storage._new(t.untyped_storage().nbytes, device)
    _backend.backend_for(storage.device).copy_from_host(
        storage.data_ptr(), t.untyped_storage().data_ptr(), storage.nbytes
    )
    return _core._from_parts(storage, t.storage_offset(), t.shape, t.stride(), t.dtype)


def output_pairs(got, want):
    """(device result, CPU result) pairs of an op that returns one tensor or a tuple."""
    return zip(
        got if isinstance(got, tuple) else (got,),
        want if isinstance(want, tuple) else (want,),
        strict=True,
    )


def same_on_device(device, tensors, cases, check):
    """Each op of ``cases`` (name -> fn) on each CPU tensor of ``tensors`` (label -> tensor) and
    on its copy on ``device`` (same strides): every output stays on the device and ``check(got,
    want_as_numpy, where)`` holds for it."""
    import numpy as np

    for label, t in tensors.items():
        d = on(device, t)
        for name, fn in cases.items():
            want, got = fn(t), fn(d)
            for g, w in output_pairs(got, want):
                assert g.device == d.device, name
                check(g, np.asarray(w), f"{name} {label}")


def standin_gpu(cublas, **attributes):
    """A ``CupyBackend`` built without a GPU, over a stand-in ``cublas`` binding (a namespace
    with the functions of cupy_backends.cuda.libs.cublas a test needs): CuPy's handle is 77,
    its current stream 5; ``attributes`` (``runtime=``, ...) are set on the object. Its
    ``gemm`` then runs strided's cuBLAS calls against the stand-in. Where CuPy and its cuBLAS
    load, every name the stand-ins offer must be one CuPy's own binding has: a stand-in that
    invents a constant hides the AttributeError a GPU would raise (CuPy 14 names no
    CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION; only a GPU run found that)."""
    import contextlib
    import importlib
    import types

    # (the package's attribute, not importlib.import_module of the submodule: the package
    # finds the CUDA libraries of the nvidia-* wheels before it loads a binding)
    real = {"cublas": ("cupy_backends.cuda.libs", "cublas"),
            "runtime": ("cupy_backends.cuda.api", "runtime")}  # fmt: skip
    for label, fake in {"cublas": cublas, **attributes}.items():
        if label not in real or importlib.util.find_spec("cupy") is None:
            continue
        package, name = real[label]
        try:
            module = getattr(importlib.import_module(package), name)
        except (ImportError, OSError):  # CuPy without the CUDA library (cuBLAS) it binds
            continue
        invented = sorted(n for n in vars(fake) if not hasattr(module, n))
        assert not invented, f"{package}.{name} has no {invented}: a stand-in must not offer them"

    cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(
        Device=lambda index: contextlib.nullcontext(),
        runtime=types.SimpleNamespace(getDevice=lambda: 0),
        device=types.SimpleNamespace(get_cublas_handle=lambda: 77),
        get_current_stream=lambda: types.SimpleNamespace(ptr=5),
    ))  # fmt: skip
    gpu = object.__new__(_backend.CupyBackend)
    gpu.cupy, gpu.index, gpu._cublas = cupy, 0, cublas
    for name, value in attributes.items():
        setattr(gpu, name, value)
    return gpu
