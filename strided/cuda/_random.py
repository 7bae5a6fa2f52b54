"""Random draws on CUDA devices: the CPU's fill functions (strided/_cpu/random.pyx.tp), same
signatures and same numbers, run by kernels/random.cu. strided/random.py's Generator picks
these for a tensor on a CUDA device, so ``manual_seed(0); rand(3, device="cuda")`` holds the
values ``rand(3)`` gives on the CPU (see Note [Random numbers on CUDA devices] there).
"""

from __future__ import annotations

import math

import numpy as np

from strided.cuda import _half, _launch
from strided.cuda._backend import backend_for

__all__ = ["uniform_fill", "normal_fill", "integers_fill", "all_modules"]

_ARGS = np.dtype(
    [
        ("out", "<i8"),
        ("n", "<i8"),
        ("seed", "<u8"),
        ("offset", "<u8"),
        ("a", "<f8"),
        ("a_odd", "<f8"),
        ("b", "<f8"),
        ("high", "<f8"),
        ("low_bits", "<u8"),
        ("range", "<u8"),
        ("wide", "<i4"),
    ],
    align=True,
)
_INTS = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def _instantiations():
    names = [
        "strided_uniform_f32",
        "strided_uniform_f64",
        "strided_normal_f32",
        "strided_normal_f64",
    ]
    # bool draws are bytes 0 and 1, as on the CPU (its values come from integers(0, 2))
    names += [
        f"strided_integers<{_launch.C_TYPES[d if d != 'bool' else 'uint8']}>"
        for d in _INTS
        if d != "bool"
    ]
    return names


def all_modules():
    """Every (module key, source, instantiations) of this file: what CI compiles."""
    return [(("random",), "random.cu", _instantiations())]


def _check(out, fn):
    if not out.is_contiguous():
        raise ValueError(
            f"{fn}: the kernels fill fresh contiguous tensors; got one with shape "
            f"{out.shape} and strides {out.stride()}"
        )


def _run(out, name, n, per_block, **fields):
    args = np.zeros((), dtype=_ARGS)
    args["out"], args["n"] = out.data_ptr(), n
    for k, v in fields.items():
        args[k] = v
    blocks = math.ceil(n / per_block)
    if n:
        backend = backend_for(out.device)
        fn = _launch.get_function(backend, ("random",), "random.cu", _instantiations, name)
        backend.launch(
            fn, (min(math.ceil(blocks / _launch.BLOCK), 2**31 - 1),), (_launch.BLOCK,), (args[()],)
        )
    out._bump_version()
    return blocks


def uniform_fill(out, seed, offset, low, high):
    """The CUDA twin of strided._cpu.random.uniform_fill (returns the blocks used)."""
    _check(out, "uniform")
    if _half.is_half(out):  # Note [CUDA half precision through float32]: round each draw
        wide = _half.widen(out)
        used = uniform_fill(wide, seed, offset, low, high)
        _half.into(out, wide)
        return used
    if not low < high:
        raise ValueError(f"uniform: low must be < high, got low={low}, high={high}")
    if not high - low < math.inf:
        raise ValueError(f"uniform: high - low overflows float64 (low={low}, high={high})")
    d = out.dtype.name
    n = out.numel() * (2 if d.startswith("complex") else 1)
    single = d in ("float32", "complex64")
    if single and not -math.inf < np.float32(low) < np.float32(high) < math.inf:
        raise ValueError(
            f"uniform: [{low}, {high}) is empty in float32 (low and high are the "
            "same float32 value) or outside float32's range"
        )
    if d not in ("float32", "float64", "complex64", "complex128"):
        raise TypeError(f"uniform: dtype {d} is not a floating dtype")
    return _run(
        out,
        "strided_uniform_f32" if single else "strided_uniform_f64",
        n,
        4 if single else 2,
        seed=seed,
        offset=offset,
        a=low,
        b=high - low,
        high=high,
    )


def normal_fill(out, seed, offset, mean, std):
    """The CUDA twin of strided._cpu.random.normal_fill (returns the blocks used)."""
    _check(out, "normal")
    if _half.is_half(out):  # Note [CUDA half precision through float32]
        wide = _half.widen(out)
        used = normal_fill(wide, seed, offset, mean, std)
        _half.into(out, wide)
        return used
    if not std >= 0:
        raise ValueError(f"normal: std must be >= 0, got {std}")
    d = out.dtype.name
    m = complex(mean)
    if d.startswith("complex"):
        n, a, a_odd = 2 * out.numel(), m.real, m.imag
    else:
        if m.imag != 0:
            raise TypeError(f"normal: a complex mean needs a complex dtype, not {d}")
        n, a, a_odd = out.numel(), m.real, m.real
    if d not in ("float32", "float64", "complex64", "complex128"):
        raise TypeError(f"normal: dtype {d} is not a floating dtype")
    single = d in ("float32", "complex64")
    return _run(
        out,
        "strided_normal_f32" if single else "strided_normal_f64",
        n,
        4 if single else 2,
        seed=seed,
        offset=offset,
        a=a,
        a_odd=a_odd,
        b=std,
    )


def integers_fill(out, seed, offset, low, high):
    """The CUDA twin of strided._cpu.random.integers_fill (returns the blocks used)."""
    _check(out, "integers")
    d = out.dtype.name
    if d not in _INTS:
        raise TypeError(f"integers: dtype {d} is not an integer dtype")
    if not low < high or high - low > 2**64:
        raise ValueError(
            f"integers: need low < high and high - low <= 2**64, got low={low}, high={high}"
        )
    wide = high - low > 2**32
    c = _launch.C_TYPES["uint8" if d == "bool" else d]
    return _run(
        out,
        f"strided_integers<{c}>",
        out.numel(),
        1 if wide else 2,
        seed=seed,
        offset=offset,
        low_bits=low % 2**64,
        range=(high - low) % 2**64,
        wide=int(wide),
    )
